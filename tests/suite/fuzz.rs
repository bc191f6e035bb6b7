//! The fuzz harness (`tests/fuzz/harness.rs`, shared with the cargo-fuzz targets) run
//! as a bounded, deterministic test: a small generator and mutator feed each front
//! door a few thousand inputs. The harness asserts what must hold of any input; this
//! test fails on any panic, including a stack overflow's abort.

#[path = "../fuzz/harness.rs"]
mod harness;

use std::path::Path;

/// xorshift64: deterministic, no dependencies.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// Byte-level mutations: delete, duplicate or swap spans, insert a token, flip a byte.
fn mutate(rng: &mut Rng, input: &mut Vec<u8>, tokens: &[&str]) {
    let len = input.len();
    let span = |rng: &mut Rng| {
        let a = rng.below(len + 1);
        let b = (a + 1 + rng.below(24)).min(len);
        (a.min(b), b)
    };
    match rng.below(5) {
        0 => {
            let (a, b) = span(rng);
            input.drain(a..b);
        }
        1 => {
            let (a, b) = span(rng);
            let piece = input[a..b].to_vec();
            let at = rng.below(input.len() + 1);
            input.splice(at..at, piece);
        }
        2 => {
            let (a, b) = span(rng);
            let piece = input[a..b].to_vec();
            input.drain(a..b);
            let at = rng.below(input.len() + 1);
            input.splice(at..at, piece);
        }
        3 => {
            let at = rng.below(len + 1);
            let t = rng.pick(tokens).as_bytes().to_vec();
            input.splice(at..at, t);
        }
        _ => {
            if len > 0 {
                let at = rng.below(len);
                input[at] = rng.next() as u8;
            }
        }
    }
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Seed programs: the Soufflé examples and the rule programs (includes spliced in).
fn program_seeds() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    let souffle = root().join("tests/souffle");
    let mut dirs: Vec<_> = std::fs::read_dir(&souffle)
        .expect("tests/souffle")
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    for d in dirs {
        if let Ok(text) = std::fs::read(d.join("program.dl")) {
            seeds.push(text);
        }
    }
    let grid = std::fs::read_to_string(root().join("datalog/grid.dl")).expect("grid.dl");
    for name in ["singles.dl", "validate.dl", "status.dl", "grid.dl"] {
        let text = std::fs::read_to_string(root().join("datalog").join(name)).expect(name);
        seeds.push(text.replace("#include \"grid.dl\"", &grid).into_bytes());
    }
    seeds.push(b"r(m) :- m = max x : { e(z) }.".to_vec());
    assert!(seeds.len() >= 5, "seed programs found");
    seeds
}

const PROGRAM_TOKENS: &[&str] = &[
    "(",
    ")",
    "{",
    "}",
    ",",
    ".",
    " :- ",
    "!",
    "_",
    "x",
    "y",
    "z",
    "0",
    "1",
    "-7",
    "+",
    "-",
    "*",
    "/",
    "%",
    " = ",
    " != ",
    " < ",
    " <= ",
    "count",
    "sum",
    "max",
    "min",
    " : ",
    "\"s\"",
    ".decl r(a: number)\n",
    ".decl s(a: symbol, b: number)\n",
    ".output ",
    ".input ",
    ".fixpoint {\n",
    ".fixpoint key 0 {\n",
    ".view ",
    "@tier(1) ",
    "@explain(\"{x}\") ",
    "@label(\"l\") ",
    "number",
    "symbol",
    "\n",
    "r(x)",
    "s(x, y)",
    "m = max x : { r(x) }",
    "c = count : { r(_) }",
    "#include \"x.dl\"\n",
    "// c\n",
    "/* c */",
    "2147483647",
];

#[test]
fn programs_never_crash() {
    let seeds = program_seeds();
    let mut rng = Rng(0x005E_ED0F_D474_10C5);
    let mut current = seeds[0].clone();
    for i in 0..5000 {
        if i % 4 == 0 {
            current = rng.pick(&seeds).clone();
        }
        for _ in 0..1 + rng.below(4) {
            mutate(&mut rng, &mut current, PROGRAM_TOKENS);
        }
        harness::program(&current);
    }
    // The issue's crashers, whole.
    harness::program(b".decl e(z: number)\n.decl r(m: number)\nr(m) :- m = max x : { e(z) }.\n");
    let flat = format!(
        ".decl r(x: number)\nr(x) :- x = {}.\n",
        vec!["1"; 50_000].join(" + ")
    );
    harness::program(flat.as_bytes());
    // Each seed as it is.
    for s in &seeds {
        harness::program(s);
    }
}

const PUZZLE_LINES: &[&str] = &[
    ".568.194.9..6.5..37..493..8897.4.635..39.68..465.8.2915..269..76..5.4..9.497.835.",
    "0568019409006050037004930088970406350039068004650802915002690076005040090497083500",
    "1.3.0...........",
    "G..8.F7C..6.51..G..8.F7C..6.51..G..8.F7C..6.51..G..8.F7C..6.51..G..8.F7C..6.51..G..8.F7C..6.51..G..8.F7C..6.51..G..8.F7C..6.51..G..8.F7C..6.51..G..8.F7C..6.51..G..8.F7C..6.51..G..8.F7C..6.51..G..8.F7C..6.51..G..8.F7C..6.51..G..8.F7C..6.51..G..8.F7C..6.51..",
    ".568.194.", "9..6.5..3", "  3  ", "12345", "abc", "-5", "465.8.2915", "", "", "   ",
    "# comment", "  # indented", "It was the best of times, it was the worst of times, it was the age of wisdom, it",
    "\u{FEFF}", "\r", "\t\t7", "1234567891234567", "\u{e9}\u{e9}", "x",
    // Variant markers and jigsaw region grids (a row, and a whole grid on one line).
    "X", "jigsaw", "AABBBBCCC", "GGHHHHIII", "AAB",
    "AABBBBCCCAABBBBBCDEAAAACCCDEEAFFCFCDEEEFFFFDDGEEFHFIDDGGEHHHIIDGGGGHIIIDGGHHHHIII",
];

#[test]
fn puzzle_text_accounted_for() {
    let mut rng = Rng(0x0F02_21E5);
    for i in 0..10000 {
        let n = rng.below(24);
        let mut text = String::new();
        for _ in 0..n {
            let line = *rng.pick(PUZZLE_LINES);
            match rng.below(6) {
                0 => {
                    let cut = rng.below(line.len() + 1);
                    text.push_str(line.get(..cut).unwrap_or(line));
                }
                _ => text.push_str(line),
            }
            text.push(if rng.below(9) == 0 { ' ' } else { '\n' });
        }
        let mut bytes = text.into_bytes();
        if i % 3 == 0 {
            for _ in 0..1 + rng.below(3) {
                mutate(
                    &mut rng,
                    &mut bytes,
                    &["\n", ".", "1", "#", "a", "\u{FEFF}"],
                );
            }
        }
        harness::puzzle(&bytes);
    }
}

#[test]
fn edit_commands_never_crash() {
    let words = [
        "set", "clear", "load", "step", "solve", "dump", "explain", "givens", "undo", "redo",
        "validate", "help", "SET", "quit", "frob",
    ];
    let args = [
        "r1c1",
        "r9c9",
        "[0,0]",
        "[8,8]",
        "r0c1",
        "r10c1",
        "[9,0]",
        "r3c4",
        "1",
        "9",
        "0",
        "10",
        "A",
        "simple",
        "broken",
        "4x4",
        "1.3.0...........",
        "-",
        "/dev/zero",
        "x y z",
        ".568.194.9..6.5..37..493..8897.4.635..39.68..465.8.2915..269..76..5.4..9.497.835.",
    ];
    let mut rng = Rng(0xED17);
    for _ in 0..150 {
        let mut input = String::new();
        for _ in 0..1 + rng.below(8) {
            let word: &&str = rng.pick(&words[..]);
            input.push_str(word);
            for _ in 0..rng.below(3) {
                input.push(' ');
                let arg: &&str = rng.pick(&args[..]);
                input.push_str(arg);
            }
            input.push('\n');
        }
        harness::edit(input.as_bytes());
    }
}
