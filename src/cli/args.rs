//! A small argument parser: positionals, `--flag`, `--opt value`, `-x value`.

use std::collections::HashMap;

/// Options that take a value.
const VALUED: &[&str] = &[
    "-F",
    "--facts",
    "-D",
    "--output",
    "-w",
    "--workers",
    "-n",
    "--processes",
    "-p",
    "--process",
    "-h",
    "--hostfile",
    "--rules",
    "--format",
    "--notation",
    "--rounds",
    "--chunk",
    "--seed",
    "--edits",
    "--repeat",
    "--limit",
    "--nodes",
    "--edges",
    "--scratch-every",
    "--port",
];

pub struct Args {
    pub positional: Vec<String>,
    values: HashMap<String, Vec<String>>,
    flags: Vec<String>,
}

fn canonical(name: &str) -> &str {
    match name {
        "-F" => "--facts",
        "-D" => "--output",
        "-w" => "--workers",
        "-n" => "--processes",
        "-p" => "--process",
        "-h" => "--hostfile",
        other => other,
    }
}

impl Args {
    pub fn parse(argv: &[String]) -> Result<Args, String> {
        let mut a = Args {
            positional: Vec::new(),
            values: HashMap::new(),
            flags: Vec::new(),
        };
        let mut i = 0;
        while i < argv.len() {
            let s = &argv[i];
            if s.starts_with('-') && s != "-" {
                let (name, inline) = match s.split_once('=') {
                    Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
                    _ => (s.clone(), None),
                };
                if VALUED.contains(&name.as_str()) {
                    let v = match inline {
                        Some(v) => v,
                        None => {
                            i += 1;
                            argv.get(i)
                                .cloned()
                                .ok_or_else(|| format!("option {name} needs a value"))?
                        }
                    };
                    a.values
                        .entry(canonical(&name).to_string())
                        .or_default()
                        .push(v);
                } else {
                    a.flags.push(name);
                }
            } else {
                a.positional.push(s.clone());
            }
            i += 1;
        }
        Ok(a)
    }
    pub fn flag(&self, name: &str) -> bool {
        self.flags.iter().any(|f| f == name)
    }
    pub fn value(&self, name: &str) -> Option<&str> {
        self.values
            .get(name)
            .and_then(|v| v.last())
            .map(|s| s.as_str())
    }
    pub fn values(&self, name: &str) -> Vec<String> {
        self.values.get(name).cloned().unwrap_or_default()
    }
    pub fn number<T: std::str::FromStr>(&self, name: &str, default: T) -> Result<T, String> {
        match self.value(name) {
            None => Ok(default),
            Some(v) => v
                .parse()
                .map_err(|_| format!("option {name}: '{v}' is not a valid number")),
        }
    }
    /// Flags not in `known`: an error naming the first.
    pub fn reject_unknown(&self, known: &[&str]) -> Result<(), String> {
        match self.flags.iter().find(|f| !known.contains(&f.as_str())) {
            Some(f) => Err(format!("unknown option '{f}'")),
            None => Ok(()),
        }
    }
    /// Engine settings shared by every command (one worker unless `-w` says otherwise).
    pub fn engine_config(&self) -> Result<sudolog::session::Config, String> {
        self.engine_config_with(1)
    }

    /// Engine settings with every available core as the default worker count.
    pub fn engine_config_all_cores(&self) -> Result<sudolog::session::Config, String> {
        self.engine_config_with(
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
        )
    }

    fn engine_config_with(&self, workers: usize) -> Result<sudolog::session::Config, String> {
        let mut c = sudolog::session::Config {
            workers: self.number("--workers", workers)?,
            ..Default::default()
        };
        if c.workers == 0 {
            return Err("option --workers: at least 1".into());
        }
        for (long, short) in [
            ("--processes", "-n"),
            ("--process", "-p"),
            ("--hostfile", "-h"),
        ] {
            if let Some(v) = self.value(long) {
                c.timely_args.push(short.to_string());
                c.timely_args.push(v.to_string());
            }
        }
        Ok(c)
    }
    /// The same options with other positionals.
    pub fn with_positional(&self, positional: Vec<String>) -> Args {
        Args {
            positional,
            values: self.values.clone(),
            flags: self.flags.clone(),
        }
    }
    /// This process's index when running across processes (0 otherwise).
    pub fn process_index(&self) -> usize {
        self.value("--process")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    }
}
