//! The board's server without a browser: the session API over the real socket
//! (loopback), and many concurrent sessions.
//!
//! A client keeps the board the way the page does: the `state` message, then each
//! `diff` applied to it. After the commands it must equal a from-scratch
//! evaluation: a fresh [`Editor`] on the same givens, at the same horizon.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::sync::Arc;

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio_tungstenite::{connect_async, tungstenite::Message, MaybeTlsStream, WebSocketStream};

use sudolog::check::ir::Program;
use sudolog::sudoku::board::Options;
use sudolog::sudoku::edit::{Editor, Rng};
use sudolog::sudoku::explain::Notation;
use sudolog::sudoku::grid::{Grid, Shape};
use sudolog::sudoku::puzzle::parse_text;
use sudolog::sudoku::rules::{builtin, from_files, Builtin};
use sudolog::sudoku::samples::sample;
use sudolog::web::{bind, ServeOptions};

use crate::sudoku_common::solve_count;

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Starts a server on a free loopback port with `program`, sessions starting empty.
pub async fn start(program: Arc<Program>) -> SocketAddr {
    let (addr, server) = bind(ServeOptions {
        addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        program,
        split: None,
        puzzle: Grid::empty(Shape::NINE),
    })
    .await
    .expect("bind");
    tokio::spawn(server);
    addr
}

fn sample_grid(name: &str) -> Grid {
    parse_text(name, sample(name).unwrap())
        .remove(0)
        .unwrap()
        .grid
}

/// A client holding the board as the page does.
struct Client {
    ws: Ws,
    cells: Vec<Value>,
    /// Log lines shown (text, withdrawn).
    log: Vec<(String, bool)>,
    last: Value,
}

impl Client {
    async fn connect(addr: SocketAddr, session: &str) -> Client {
        let (ws, _) = connect_async(format!("ws://{addr}/ws?session={session}"))
            .await
            .expect("connect");
        let mut c = Client {
            ws,
            cells: Vec::new(),
            log: Vec::new(),
            last: Value::Null,
        };
        let m = c.ask(json!({"op": "sync"})).await;
        assert_eq!(m["type"], "state", "{m}");
        c
    }

    /// Sends a text frame; returns the first reply that is not `busy`, applied.
    async fn send_text(&mut self, text: String) -> Value {
        self.ws
            .send(Message::Text(text.into()))
            .await
            .expect("send");
        loop {
            let msg = self.ws.next().await.expect("reply").expect("frame");
            let Message::Text(t) = msg else { continue };
            let m: Value = serde_json::from_str(&t).expect("json");
            if m["type"] == "busy" {
                continue;
            }
            self.apply(&m);
            self.last = m.clone();
            return m;
        }
    }

    async fn ask(&mut self, req: Value) -> Value {
        self.send_text(req.to_string()).await
    }

    fn apply(&mut self, m: &Value) {
        match m["type"].as_str() {
            Some("state") => {
                self.cells = m["cells"].as_array().unwrap().clone();
                self.log = m["log"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|l| (l["text"].as_str().unwrap().to_string(), false))
                    .collect();
            }
            Some("diff") => {
                for c in m["cells"].as_array().unwrap() {
                    let i = c["c"].as_u64().unwrap() as usize;
                    self.cells[i] = c.clone();
                }
                let texts = |k: &str| -> Vec<String> {
                    m[k].as_array()
                        .unwrap()
                        .iter()
                        .map(|t| t.as_str().unwrap().to_string())
                        .collect()
                };
                let dropped = texts("dropped");
                self.log.retain(|(t, _)| !dropped.contains(t));
                for t in texts("withdrawn") {
                    for l in &mut self.log {
                        if l.0 == t {
                            l.1 = true;
                        }
                    }
                }
                for l in m["added"].as_array().unwrap() {
                    self.log
                        .push((l["text"].as_str().unwrap().to_string(), false));
                }
            }
            _ => {}
        }
    }

    fn values(&self) -> Vec<u8> {
        self.cells
            .iter()
            .map(|c| c["value"].as_u64().unwrap() as u8)
            .collect()
    }
    fn cands(&self) -> Vec<Vec<u8>> {
        self.cells
            .iter()
            .map(|c| {
                c["cands"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_u64().unwrap() as u8)
                    .collect()
            })
            .collect()
    }
    fn givens(&self) -> Grid {
        let size = (self.cells.len() as f64).sqrt() as usize;
        let values = self
            .cells
            .iter()
            .map(|c| {
                if c["given"].as_bool().unwrap() {
                    c["value"].as_u64().unwrap() as u8
                } else {
                    0
                }
            })
            .collect();
        Grid::from_values(Shape::from_size(size).unwrap(), values).unwrap()
    }
    fn shown_log(&self) -> BTreeSet<String> {
        self.log
            .iter()
            .filter(|l| !l.1)
            .map(|l| l.0.clone())
            .collect()
    }
    fn stepping(&self) -> bool {
        self.last["caption"]["stepping"].as_bool().unwrap()
    }

    /// The board equals a from-scratch evaluation of its givens at its horizon
    /// (`stepping`: from the givens, with `steps` Step presses).
    fn check_from_scratch(&self, program: &Arc<Program>, steps: usize, what: &str) {
        let mut ed = Editor::with_program(
            program.clone(),
            Options::default(),
            self.givens(),
            Notation::Drools,
        )
        .unwrap();
        if self.stepping() {
            ed.rewind();
            for _ in 0..steps {
                ed.command("step").unwrap();
            }
        }
        let (placed, cands) = ed.state();
        let open_cands: Vec<Vec<u8>> = placed
            .iter()
            .zip(cands)
            .map(|(&p, c)| if p == 0 { c } else { Vec::new() })
            .collect();
        assert_eq!(self.values(), placed, "{what}: values");
        assert_eq!(self.cands(), open_cands, "{what}: candidates");
        let log: BTreeSet<String> = ed.log().into_iter().map(|l| l.text).collect();
        assert_eq!(self.shown_log(), log, "{what}: explain log");
    }
}

/// Cells that changed value between two value vectors: (cell, before, after).
fn changed(a: &[u8], b: &[u8]) -> Vec<(usize, u8, u8)> {
    a.iter()
        .zip(b)
        .enumerate()
        .filter(|(_, (x, y))| x != y)
        .map(|(c, (&x, &y))| (c, x, y))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_api_over_the_socket() {
    let program = builtin(Builtin::Full).unwrap();
    let addr = start(program.clone()).await;
    let mut c = Client::connect(addr, "api-1").await;
    assert_eq!(c.values(), vec![0; 81]);

    // load: Hard 3's givens, stepping from them; Solve and Step can act.
    let m = c.ask(json!({"op": "sample", "name": "hard3"})).await;
    assert_eq!(m["type"], "state", "{m}");
    let hard3 = sample_grid("hard3");
    assert_eq!(c.givens(), hard3);
    assert_eq!(m["buttons"]["step"], true);
    assert_eq!(m["buttons"]["undo"], true);
    assert_eq!(m["buttons"]["redo"], false);
    c.check_from_scratch(&program, 0, "load");
    let loaded = (c.values(), c.cands());

    // set: an open cell, to one of its candidates; its peers lose that candidate.
    let cell = (0..81).find(|&i| c.values()[i] == 0).unwrap();
    let v = c.cands()[cell][0];
    let m = c.ask(json!({"op": "set", "cell": cell, "value": v})).await;
    assert_eq!(m["type"], "diff", "{m}");
    assert_eq!(changed(&loaded.0, &c.values()), vec![(cell, 0, v)]);
    let peers = sudolog::sudoku::grid::peers(Shape::NINE, cell);
    for p in peers {
        if loaded.1[p].contains(&v) {
            assert!(!c.cands()[p].contains(&v), "peer {p} keeps {v}");
        }
    }
    c.check_from_scratch(&program, 0, "set");

    // clear: the board is exactly as loaded again.
    let m = c.ask(json!({"op": "clear", "cell": cell})).await;
    assert_eq!(m["type"], "diff", "{m}");
    assert_eq!((c.values(), c.cands()), loaded);

    // hint: the next deduction, not applied; Step shows it first, and places one value.
    let before = c.values();
    let h = c.ask(json!({"op": "hint"})).await;
    assert_eq!(h["type"], "hint");
    let hint = h["line"]["text"].as_str().unwrap().to_string();
    assert_eq!(c.values(), before);
    let m = c.ask(json!({"op": "step"})).await;
    assert_eq!(m["added"][0]["text"], hint.as_str(), "{m}");
    let one = changed(&before, &c.values());
    assert_eq!(one.len(), 1, "step placed {one:?}");
    assert_eq!(one[0].1, 0);
    let last = m["added"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        last["target"], one[0].0,
        "the last line places the new value: {last}"
    );
    // A second step: again exactly one value.
    let before = c.values();
    c.ask(json!({"op": "step"})).await;
    assert_eq!(changed(&before, &c.values()).len(), 1);
    c.check_from_scratch(&program, 2, "two steps");

    // solve: Hard 3's one solution.
    let m = c.ask(json!({"op": "solve"})).await;
    assert_eq!(m["caption"]["outcome"], "solved", "{m}");
    let (n, sol) = solve_count(&hard3.values, 2);
    assert_eq!(n, 1);
    assert_eq!(c.values(), sol.unwrap());
    assert_eq!(m["buttons"]["step"], false);
    assert_eq!(m["buttons"]["solve"], false);
    c.check_from_scratch(&program, 0, "solve");

    // undo takes back the clear: the set given is back, at all rounds.
    let m = c.ask(json!({"op": "undo"})).await;
    assert_eq!(m["type"], "diff");
    let mut with = hard3.clone();
    with.values[cell] = v;
    assert_eq!(c.givens(), with);
    assert_eq!(m["buttons"]["redo"], true);
    c.check_from_scratch(&program, 0, "undo");

    // dump and validate answer in their own messages.
    let d = c.ask(json!({"op": "dump"})).await;
    assert!(
        d["text"].as_str().unwrap().starts_with("       Col: 0"),
        "{d}"
    );
    let val = c.ask(json!({"op": "validate"})).await;
    assert_eq!(
        val["lines"].as_array().unwrap().last().unwrap(),
        "Validation complete."
    );

    // A reconnect with the same id finds the same board; another id a fresh one.
    let mut again = Client::connect(addr, "api-1").await;
    assert_eq!(again.values(), c.values());
    assert_eq!(again.givens(), with);
    let other = Client::connect(addr, "api-2").await;
    assert_eq!(other.values(), vec![0; 81]);
    again.ws.close(None).await.ok();
}

/// Solve searches where the rules stall: top95 #29, which the full rules cannot finish,
/// shows its one solution (the oracle's), and the next edits take the search back.
#[tokio::test(flavor = "multi_thread")]
async fn solve_searches_where_the_rules_stall() {
    let program = builtin(Builtin::Full).unwrap();
    let addr = start(program.clone()).await;
    let mut c = Client::connect(addr, "search-1").await;
    let text = std::fs::read_to_string(format!(
        "{}/tests/data/top95.txt",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let line = text.lines().nth(28).unwrap().to_string();
    let m = c.ask(json!({"op": "open", "text": line})).await;
    assert_eq!(m["type"], "state", "{m}");
    let givens = c.givens();
    let (n, sol) = solve_count(&givens.values, 2);
    assert_eq!(n, 1, "top95 #29 has one solution");
    let m = c.ask(json!({"op": "solve"})).await;
    assert_eq!(m["caption"]["outcome"], "solved", "{m}");
    assert!(
        m["text"].as_str().unwrap().contains("search: solved after"),
        "the rules alone stall on top95 #29: {m}"
    );
    assert_eq!(c.values(), sol.unwrap());
    // Edits take the search's values back: set a given and clear it again, and the
    // rules' fixpoint for the same givens leaves cells open.
    let open = (0..81).find(|&i| givens.values[i] == 0).unwrap();
    let v = c.values()[open];
    c.ask(json!({"op": "set", "cell": open, "value": v})).await;
    c.ask(json!({"op": "clear", "cell": open})).await;
    assert_eq!(c.givens(), givens);
    assert!(
        c.values().contains(&0),
        "the search's values stay after an edit"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_a_message_and_the_server_goes_on() {
    let program = builtin(Builtin::Fast).unwrap();
    let addr = start(program).await;
    let mut c = Client::connect(addr, "bad-1").await;
    let cases = [
        ("not json".to_string(), "malformed message"),
        (json!({"op": "fly"}).to_string(), "malformed message"),
        (
            json!({"op": "set", "cell": 81, "value": 1}).to_string(),
            "no cell 81",
        ),
        (
            json!({"op": "set", "cell": 3, "value": 10}).to_string(),
            "bad value 10",
        ),
        (
            json!({"op": "clear", "cell": 3}).to_string(),
            "holds no given",
        ),
        (
            json!({"op": "sample", "name": "nope"}).to_string(),
            "no sample called 'nope'",
        ),
        (
            json!({"op": "open", "text": "12x45"}).to_string(),
            "<opened>:1:",
        ),
        (json!({"op": "undo"}).to_string(), "nothing to undo"),
    ];
    for (text, want) in cases {
        let m = c.send_text(text.clone()).await;
        assert_eq!(m["type"], "error", "{text}: {m}");
        let msg = m["message"].as_str().unwrap();
        assert!(msg.contains(want), "{text}: {msg}");
    }
    // The board is unchanged, and the session works.
    let m = c
        .ask(json!({"op": "open", "text": sample("hard1").unwrap()}))
        .await;
    assert_eq!(m["type"], "state", "{m}");
    assert_eq!(c.givens(), sample_grid("hard1"));
    // Other sizes: the board is redrawn at 4x4 and 16x16 (the first puzzle of each file).
    for (file, size) in [("4x4.txt", 4usize), ("16x16.txt", 16)] {
        let text = std::fs::read_to_string(format!("{}/inputs/{file}", env!("CARGO_MANIFEST_DIR")))
            .unwrap();
        let m = c.ask(json!({"op": "open", "text": text})).await;
        assert_eq!(m["type"], "state", "{m}");
        assert_eq!(m["size"], size);
        assert_eq!(m["box_size"], (size as f64).sqrt() as usize);
        let first = parse_text(file, &text).remove(0).unwrap().grid;
        assert_eq!(c.givens(), first);
    }
    // Variants: a jigsaw's regions and Sudoku X's diagonals reach the page.
    let read = |file: &str| {
        std::fs::read_to_string(format!("{}/inputs/{file}", env!("CARGO_MANIFEST_DIR"))).unwrap()
    };
    let m = c
        .ask(json!({"op": "open", "text": read("jigsaw_regions.txt")}))
        .await;
    assert_eq!(m["type"], "state", "{m}");
    assert_eq!(m["diagonals"], false);
    let regions: Vec<u64> = m["regions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_u64().unwrap())
        .collect();
    let letters: String = read("jigsaw_regions.txt")
        .lines()
        .filter(|l| l.len() == 9 && l.bytes().all(|b| b.is_ascii_uppercase()))
        .collect();
    let want: Vec<u64> = letters.bytes().map(|b| u64::from(b - b'A')).collect();
    assert_eq!(regions, want);
    let m = c
        .ask(json!({"op": "open", "text": read("x_diagonals.txt")}))
        .await;
    assert_eq!(m["type"], "state", "{m}");
    assert_eq!(m["diagonals"], true);
    let boxes: Vec<u64> = (0..81u64).map(|c| c / 27 * 3 + c % 9 / 3).collect();
    assert_eq!(m["regions"], json!(boxes));
    // A connection without a session id is refused.
    assert!(connect_async(format!("ws://{addr}/ws")).await.is_err());
}

/// 100 sessions at once, 100 edits each (sets of candidates, clears of givens,
/// undos and redos), each board ending equal to a from-scratch evaluation. The
/// sessions run `datalog/singles.dl` (naked and hidden singles) to keep the
/// runtime reasonable on two cores.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hundred_sessions_hundred_edits() {
    let program =
        from_files(&[concat!(env!("CARGO_MANIFEST_DIR"), "/datalog/singles.dl").to_string()])
            .unwrap();
    let addr = start(program.clone()).await;
    let names = ["simple", "medium", "hard1", "hard2", "hard3", "hard4"];
    let mut tasks = Vec::new();
    for s in 0..100u64 {
        let program = program.clone();
        tasks.push(tokio::spawn(async move {
            let mut c = Client::connect(addr, &format!("many-{s}")).await;
            let mut rng = Rng::new(s);
            let name = names[rng.below(names.len())];
            let m = c.ask(json!({"op": "sample", "name": name})).await;
            assert_eq!(m["type"], "state", "{m}");
            let mut edits = 0;
            while edits < 100 {
                let vals = c.values();
                let cands = c.cands();
                let givens: Vec<usize> = (0..81)
                    .filter(|&i| c.cells[i]["given"].as_bool().unwrap())
                    .collect();
                let open: Vec<usize> = (0..81)
                    .filter(|&i| vals[i] == 0 && !cands[i].is_empty())
                    .collect();
                let roll = rng.below(100);
                let req = if roll < 10 {
                    json!({"op": "undo"})
                } else if roll < 15 {
                    json!({"op": "redo"})
                } else if (roll < 55 || open.is_empty()) && !givens.is_empty() {
                    json!({"op": "clear", "cell": givens[rng.below(givens.len())]})
                } else if let Some(&cell) = open.get(rng.below(open.len().max(1))) {
                    let v = cands[cell][rng.below(cands[cell].len())];
                    json!({"op": "set", "cell": cell, "value": v})
                } else {
                    json!({"op": "undo"})
                };
                let m = c.ask(req.clone()).await;
                match m["type"].as_str() {
                    Some("diff") => edits += 1,
                    Some("error") => {
                        let msg = m["message"].as_str().unwrap();
                        assert!(
                            msg == "nothing to undo" || msg == "nothing to redo",
                            "session {s}: {req}: {msg}"
                        );
                    }
                    other => panic!("session {s}: {req}: {other:?}"),
                }
            }
            c.check_from_scratch(&program, 0, &format!("session {s}"));
        }));
    }
    for t in tasks {
        t.await.expect("session task");
    }
}
