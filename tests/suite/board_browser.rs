//! The board in a real browser: headless Chromium driven over the DevTools protocol
//! (a small client over a WebSocket), against a server on a loopback port.
//!
//! Loads Hard 3 from the Samples menu, sets a given by clicking a cell and typing a
//! digit, checks the cells and pencil marks that change, clears it with Delete,
//! presses Step (exactly one new value), clicks a log line (its cells highlighted),
//! and presses Solve (Hard 3's solution). Needs Debian's `chromium` package:
//! `apt-get install -y chromium` (`.ci/run` installs it when missing). With
//! `SUDOLOG_SCREENSHOTS=DIR` it saves the screenshots shown in the README there.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio_tungstenite::{connect_async, tungstenite::Message, MaybeTlsStream, WebSocketStream};

use sudolog::sudoku::grid::{peers, Shape};
use sudolog::sudoku::puzzle::parse_text;
use sudolog::sudoku::rules::{builtin, Builtin};
use sudolog::sudoku::samples::sample;

use crate::board_server::start;
use crate::sudoku_common::solve_count;

const FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--remote-debugging-port=0",
    "--window-size=1280,860",
];

/// Chromium, killed (and its profile removed) on drop.
struct Browser {
    child: Child,
    profile: std::path::PathBuf,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// Starts Chromium with a fresh profile; returns it and its DevTools WebSocket URL.
fn launch() -> (Browser, String) {
    let exe = ["chromium", "chromium-browser"]
        .into_iter()
        .find(|c| {
            Command::new("sh")
                .args(["-c", &format!("command -v {c}")])
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .unwrap_or_else(|| {
            panic!("the browser test needs Chromium: apt-get update && apt-get install -y chromium")
        });
    let profile = std::env::temp_dir().join(format!(
        "sudolog-chromium-{}-{}",
        std::process::id(),
        Instant::now().elapsed().as_nanos()
    ));
    std::fs::create_dir_all(&profile).unwrap();
    let mut child = Command::new(exe)
        .args(FLAGS)
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("about:blank")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start chromium");
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(url) = line.strip_prefix("DevTools listening on ") {
                let _ = tx.send(url.trim().to_string());
            }
        }
    });
    let browser = Browser { child, profile };
    let url = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("Chromium did not print its DevTools address within 60 s");
    (browser, url)
}

/// A DevTools connection attached to one page (flattened session).
struct Cdp {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    next: u64,
    session: Option<String>,
}

impl Cdp {
    async fn call(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = &self.session {
            msg["sessionId"] = json!(s);
        }
        self.ws
            .send(Message::Text(msg.to_string().into()))
            .await
            .expect("send to chromium");
        loop {
            let frame = tokio::time::timeout(Duration::from_secs(60), self.ws.next())
                .await
                .unwrap_or_else(|_| panic!("{method}: no answer from chromium"))
                .expect("chromium closed")
                .expect("frame");
            let Message::Text(t) = frame else { continue };
            let m: Value = serde_json::from_str(&t).unwrap();
            if m["id"] == id {
                assert!(m.get("error").is_none(), "{method}: {m}");
                return m["result"].clone();
            }
        }
    }

    /// Evaluates `expr` in the page; its value (JSON).
    async fn eval(&mut self, expr: &str) -> Value {
        let r = self
            .call(
                "Runtime.evaluate",
                json!({"expression": expr, "returnByValue": true, "awaitPromise": true}),
            )
            .await;
        assert!(r.get("exceptionDetails").is_none(), "{expr}: {r}");
        r["result"]["value"].clone()
    }

    /// Runs `action` in the page and waits for the server's answer to it.
    async fn act(&mut self, action: &str) {
        let seq = self.eval("window.sudolog.seq").await.as_u64().unwrap();
        self.eval(action).await;
        self.wait_seq(seq).await;
    }

    async fn wait_seq(&mut self, seq: u64) {
        let start = Instant::now();
        loop {
            let now = self.eval("window.sudolog.seq").await.as_u64().unwrap_or(0);
            if now > seq {
                return;
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "no reply from the board"
            );
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
    }

    async fn key(&mut self, key: &str, code: &str, vk: u32, text: &str) {
        let seq = self.eval("window.sudolog.seq").await.as_u64().unwrap();
        for kind in ["keyDown", "keyUp"] {
            let mut p = json!({"type": kind, "key": key, "code": code,
                               "windowsVirtualKeyCode": vk});
            if kind == "keyDown" && !text.is_empty() {
                p["text"] = json!(text);
            }
            self.call("Input.dispatchKeyEvent", p).await;
        }
        self.wait_seq(seq).await;
    }

    /// The board as drawn: per cell (value shown, is a given, pencil marks shown).
    async fn board(&mut self) -> Vec<(u8, bool, Vec<u8>)> {
        let v = self
            .eval(
                r#"[...document.getElementById('board').children].map(d => [
                     d.querySelector('.v') ? "123456789ABCDEFGHIJKLMNOP".indexOf(d.querySelector('.v').textContent) + 1 : 0,
                     d.classList.contains('given'),
                     [...d.querySelectorAll('.marks span')].filter(s => s.textContent).map(s => +s.dataset.v)])"#,
            )
            .await;
        v.as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c[0].as_u64().unwrap() as u8,
                    c[1].as_bool().unwrap(),
                    c[2].as_array()
                        .unwrap()
                        .iter()
                        .map(|x| x.as_u64().unwrap() as u8)
                        .collect(),
                )
            })
            .collect()
    }

    async fn screenshot(&mut self, name: &str) {
        let Ok(dir) = std::env::var("SUDOLOG_SCREENSHOTS") else {
            return;
        };
        let r = self
            .call("Page.captureScreenshot", json!({"format": "png"}))
            .await;
        let png = base64(r["data"].as_str().unwrap());
        assert_eq!(&png[1..4], b"PNG");
        std::fs::write(std::path::Path::new(&dir).join(name), png).unwrap();
    }
}

fn base64(text: &str) -> Vec<u8> {
    let val = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => (c - b'A') as u32,
            b'a'..=b'z' => (c - b'a') as u32 + 26,
            b'0'..=b'9' => (c - b'0') as u32 + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("bad base64"),
        }
    };
    let bytes: Vec<u8> = text.bytes().filter(|&b| b != b'=' && b != b'\n').collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for (i, &b) in chunk.iter().enumerate() {
            n |= val(b) << (18 - 6 * i);
        }
        for i in 0..chunk.len() - 1 {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    out
}

/// Opens the board's page in a new tab of the browser at `devtools`.
async fn open_page(devtools: &str, addr: SocketAddr) -> Cdp {
    let (ws, _) = connect_async(devtools).await.expect("devtools");
    let mut cdp = Cdp {
        ws,
        next: 0,
        session: None,
    };
    let t = cdp
        .call(
            "Target.createTarget",
            json!({"url": format!("http://{addr}/")}),
        )
        .await;
    let s = cdp
        .call(
            "Target.attachToTarget",
            json!({"targetId": t["targetId"], "flatten": true}),
        )
        .await;
    cdp.session = Some(s["sessionId"].as_str().unwrap().to_string());
    cdp.call("Runtime.enable", json!({})).await;
    // The page has connected and drawn its first board.
    let start = Instant::now();
    while cdp
        .eval("window.sudolog ? window.sudolog.seq : 0")
        .await
        .as_u64()
        .unwrap_or(0)
        == 0
    {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the page did not load"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    cdp
}

fn changed(a: &[(u8, bool, Vec<u8>)], b: &[(u8, bool, Vec<u8>)]) -> Vec<usize> {
    (0..a.len()).filter(|&i| a[i] != b[i]).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_board_in_headless_chromium() {
    let (_browser, devtools) = launch();
    let addr = start(builtin(Builtin::Full).unwrap()).await;
    let mut page = open_page(&devtools, addr).await;

    // Samples > Hard 3.
    page.act("(() => { const s = document.getElementById('samples'); s.value = 'hard3'; s.dispatchEvent(new Event('change')); })()")
        .await;
    let hard3 = parse_text("hard3", sample("hard3").unwrap())
        .remove(0)
        .unwrap()
        .grid;
    let loaded = page.board().await;
    for (c, (v, given, marks)) in loaded.iter().enumerate() {
        assert_eq!(
            (*v, *given),
            (hard3.values[c], hard3.values[c] != 0),
            "cell {c}"
        );
        // Open cells show pencil marks: no given of a peer among them.
        if *v == 0 {
            assert!(!marks.is_empty(), "cell {c} has no marks");
            for p in peers(Shape::NINE, c) {
                assert!(
                    !marks.contains(&hard3.values[p]),
                    "cell {c} shows {}",
                    hard3.values[p]
                );
            }
        }
    }
    assert_eq!(
        page.eval("document.getElementById('step').disabled").await,
        false
    );

    // Click an open cell, type one of its candidates: it becomes a given, and exactly
    // the peers that showed that mark lose it.
    let cell = (0..81).find(|&c| loaded[c].0 == 0).unwrap();
    let v = loaded[cell].2[0];
    page.eval(&format!(
        "document.querySelector('[data-c=\"{cell}\"]').click()"
    ))
    .await;
    let ch = char::from(b'0' + v).to_string();
    page.key(&ch, &format!("Digit{v}"), 48 + v as u32, &ch)
        .await;
    let set = page.board().await;
    assert_eq!(set[cell].0, v);
    assert!(set[cell].1, "the cell shows a given");
    let mut want: Vec<usize> = peers(Shape::NINE, cell)
        .into_iter()
        .filter(|&p| loaded[p].0 == 0 && loaded[p].2.contains(&v))
        .collect();
    want.push(cell);
    want.sort();
    assert_eq!(changed(&loaded, &set), want);
    for &p in &want[..] {
        if p != cell {
            assert!(!set[p].2.contains(&v), "cell {p} still shows {v}");
        }
    }

    // Delete clears it: the board is as loaded.
    page.key("Delete", "Delete", 46, "").await;
    assert_eq!(page.board().await, loaded);

    // Step: exactly one new value.
    page.act("document.getElementById('step').click()").await;
    let stepped = page.board().await;
    let new: Vec<usize> = (0..81)
        .filter(|&c| loaded[c].0 == 0 && stepped[c].0 != 0)
        .collect();
    assert_eq!(new.len(), 1, "Step placed {new:?}");
    assert!((0..81).all(|c| loaded[c].0 == 0 || stepped[c].0 == loaded[c].0));

    // More steps, then a screenshot mid-solve; a log line clicked highlights its cells.
    for _ in 0..14 {
        page.act("document.getElementById('step').click()").await;
    }
    page.screenshot("board-midsolve.png").await;
    let lines = page
        .eval("document.querySelectorAll('#log .line').length")
        .await;
    assert!(lines.as_u64().unwrap() >= 15, "{lines}");
    // Step on until the log holds a deduction with a pattern of several cells.
    let several = "[...document.querySelectorAll('#log .line')].some(x => JSON.parse(x.dataset.cells).length >= 2)";
    for _ in 0..60 {
        if page.eval(several).await == true
            || page.eval("document.getElementById('step').disabled").await == true
        {
            break;
        }
        page.act("document.getElementById('step').click()").await;
    }
    let hl = page
        .eval(
            r#"(() => { const ls = [...document.querySelectorAll('#log .line')];
                 const l = ls.find(x => JSON.parse(x.dataset.cells).length >= 2) || ls[ls.length - 1];
                 l.click();
                 return [JSON.parse(l.dataset.cells),
                         [...document.querySelectorAll('.cell.hl, .cell.hl-target')].map(d => +d.dataset.c)]; })()"#,
        )
        .await;
    let mut named: Vec<u64> = hl[0]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    let lit: Vec<u64> = hl[1]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    named.sort();
    assert!(!named.is_empty());
    assert!(
        named.iter().all(|c| lit.contains(c)),
        "{named:?} not all in {lit:?}"
    );
    page.screenshot("board-highlight.png").await;

    // Solve: Hard 3's solution.
    page.act("document.getElementById('solve').click()").await;
    let solved = page.board().await;
    let (n, sol) = solve_count(&hard3.values, 2);
    assert_eq!(n, 1);
    let sol = sol.unwrap();
    assert_eq!(solved.iter().map(|c| c.0).collect::<Vec<u8>>(), sol);
    assert_eq!(
        page.eval("document.getElementById('step').disabled").await,
        true
    );
    let status = page
        .eval("document.getElementById('status').textContent")
        .await;
    assert!(status.as_str().unwrap().contains("solved"), "{status}");

    // Open... a jigsaw: the thick lines follow its regions, not the classic boxes.
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/inputs/jigsaw_regions.txt"
    ))
    .unwrap();
    page.eval("document.getElementById('open').click()").await;
    page.eval(&format!(
        "document.getElementById('open-text').value = {}",
        serde_json::to_string(&text).unwrap()
    ))
    .await;
    page.act("document.getElementById('open-load').click()")
        .await;
    let letters: Vec<u8> = text
        .lines()
        .filter(|l| l.len() == 9 && l.bytes().all(|b| b.is_ascii_uppercase()))
        .flat_map(|l| l.bytes())
        .collect();
    assert_eq!(letters.len(), 81);
    let drawn = page
        .eval("[...document.getElementById('board').children].map(d => [d.classList.contains('bx'), d.classList.contains('by')])")
        .await;
    for c in 0..81 {
        let (r, k) = (c / 9, c % 9);
        let right = k < 8 && letters[c] != letters[c + 1];
        let below = r < 8 && letters[c] != letters[c + 9];
        assert_eq!(
            (drawn[c][0].as_bool(), drawn[c][1].as_bool()),
            (Some(right), Some(below)),
            "cell {c}"
        );
    }
    page.screenshot("board-jigsaw.png").await;
}
