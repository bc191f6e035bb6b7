//! The board: a web page on a live editing session (`sudolog serve`).
//!
//! In: [`ServeOptions`] (address, rule program, first puzzle). Out: an HTTP server
//! (axum on tokio) with two routes: `GET /`, the page (`page.html`, embedded in the
//! binary), and `GET /ws?session=ID`, a WebSocket carrying the JSON messages of
//! [`protocol`]. Each session id (one per browser tab; the page keeps it in
//! `sessionStorage`) has its own [`Editor`](crate::sudoku::edit::Editor) on its own
//! thread ([`session`]); a reconnect with the same id finds the session again and
//! resynchronises. Sessions with no connection are dropped after
//! [`IDLE_LIMIT`]. A malformed message or a bad puzzle gets an `error` message and
//! a line in the server log; the server goes on.

pub mod protocol;
mod session;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Query, State};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde::Deserialize;
use tokio::sync::oneshot;

use crate::check::ir::Program;
use crate::check::split::TierSplit;
use crate::sudoku::grid::Grid;
use protocol::{Reply, Request};

/// The page, embedded at build time.
const PAGE: &str = include_str!("page.html");

/// Sessions with no connection for this long are dropped.
pub const IDLE_LIMIT: Duration = Duration::from_secs(15 * 60);

/// The most sessions held at once (each runs an engine).
pub const MAX_SESSIONS: usize = 400;

/// Errors of the board server.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("cannot start the server: {0}")]
    Runtime(std::io::Error),
    #[error("the server stopped: {0}")]
    Serve(std::io::Error),
}

/// What `sudolog serve` needs.
#[derive(Clone)]
pub struct ServeOptions {
    /// Where to listen (127.0.0.1 by default; port 0 picks a free port).
    pub addr: SocketAddr,
    /// The rule program every session runs.
    pub program: Arc<Program>,
    /// Its split by tier, for the sessions to step (see [`Options::stepped`]).
    ///
    /// [`Options::stepped`]: crate::sudoku::board::Options::stepped
    pub split: Option<Arc<TierSplit>>,
    /// The grid a new session starts with.
    pub puzzle: Grid,
}

/// Runs the server until the process is interrupted (Ctrl-C). Prints the address.
pub fn serve(opts: ServeOptions) -> Result<(), WebError> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(WebError::Runtime)?;
    rt.block_on(async move {
        let (addr, server) = bind(opts).await?;
        println!("sudolog serve: the board is at http://{addr}/ (Ctrl-C stops)");
        tokio::select! {
            r = server => r,
            _ = tokio::signal::ctrl_c() => Ok(()),
        }
    })
}

/// Binds the listener and returns its address and the server future (run it to
/// serve). For tests: bind to port 0 and spawn the future.
pub async fn bind(
    opts: ServeOptions,
) -> Result<
    (
        SocketAddr,
        impl std::future::Future<Output = Result<(), WebError>> + Send,
    ),
    WebError,
> {
    let listener = tokio::net::TcpListener::bind(opts.addr)
        .await
        .map_err(|source| WebError::Bind {
            addr: opts.addr,
            source,
        })?;
    let addr = listener.local_addr().map_err(WebError::Runtime)?;
    let app = Arc::new(App {
        program: opts.program,
        split: opts.split,
        puzzle: opts.puzzle,
        sessions: Mutex::new(HashMap::new()),
    });
    tokio::spawn(reap(Arc::downgrade(&app)));
    let router = Router::new()
        .route("/", get(page))
        .route("/ws", get(socket))
        .with_state(app);
    Ok((addr, async move {
        axum::serve(listener, router).await.map_err(WebError::Serve)
    }))
}

/// The server's shared state: the sessions by id.
struct App {
    program: Arc<Program>,
    split: Option<Arc<TierSplit>>,
    puzzle: Grid,
    sessions: Mutex<HashMap<String, Arc<Handle>>>,
}

/// A session's channel and bookkeeping.
struct Handle {
    jobs: Mutex<mpsc::Sender<session::Job>>,
    connections: AtomicUsize,
    last_seen: Mutex<Instant>,
}

impl App {
    /// The session called `id`, made if new.
    fn session(&self, id: &str) -> Result<Arc<Handle>, String> {
        let mut map = self.sessions.lock().map_err(|_| "session table poisoned")?;
        if let Some(h) = map.get(id) {
            return Ok(h.clone());
        }
        if map.len() >= MAX_SESSIONS {
            return Err(format!(
                "too many sessions ({MAX_SESSIONS}); close other tabs and reload"
            ));
        }
        let jobs = session::spawn(
            self.program.clone(),
            self.split.clone(),
            self.puzzle.clone(),
        )
        .map_err(|e| format!("cannot start a session: {e}"))?;
        let h = Arc::new(Handle {
            jobs: Mutex::new(jobs),
            connections: AtomicUsize::new(0),
            last_seen: Mutex::new(Instant::now()),
        });
        map.insert(id.to_string(), h.clone());
        Ok(h)
    }
}

/// Drops sessions that have had no connection for [`IDLE_LIMIT`].
async fn reap(app: std::sync::Weak<App>) {
    loop {
        tokio::time::sleep(Duration::from_secs(30)).await;
        let Some(app) = app.upgrade() else { return };
        if let Ok(mut map) = app.sessions.lock() {
            map.retain(|_, h| {
                h.connections.load(Ordering::SeqCst) > 0
                    || h.last_seen
                        .lock()
                        .map(|t| t.elapsed() < IDLE_LIMIT)
                        .unwrap_or(false)
            });
        };
    }
}

async fn page() -> Html<&'static str> {
    Html(PAGE)
}

#[derive(Deserialize)]
struct WsQuery {
    session: Option<String>,
}

async fn socket(
    ws: WebSocketUpgrade,
    Query(q): Query<WsQuery>,
    State(app): State<Arc<App>>,
) -> Response {
    let id = q.session.unwrap_or_default();
    if id.is_empty() || id.len() > 64 || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    {
        eprintln!("sudolog serve: refused a connection with a bad session id");
        return (
            axum::http::StatusCode::BAD_REQUEST,
            "session=ID required (letters, digits, '-')",
        )
            .into_response();
    }
    ws.on_upgrade(move |socket| connection(socket, app, id))
}

/// One WebSocket: requests in, replies out, in order.
async fn connection(mut socket: WebSocket, app: Arc<App>, id: String) {
    let app2 = app.clone();
    let id2 = id.clone();
    let handle = match tokio::task::spawn_blocking(move || app2.session(&id2)).await {
        Ok(Ok(h)) => h,
        Ok(Err(message)) => {
            eprintln!("sudolog serve: session {id}: {message}");
            let _ = send(&mut socket, &Reply::Error { message }).await;
            return;
        }
        Err(e) => {
            eprintln!("sudolog serve: session {id}: {e}");
            return;
        }
    };
    handle.connections.fetch_add(1, Ordering::SeqCst);
    while let Some(msg) = socket.recv().await {
        let text = match msg {
            Ok(Message::Text(t)) => t.to_string(),
            Ok(Message::Close(_)) | Err(_) => break,
            Ok(Message::Binary(_)) => {
                let message = "binary messages are not understood; send JSON text".to_string();
                if send(&mut socket, &Reply::Error { message }).await.is_err() {
                    break;
                }
                continue;
            }
            Ok(_) => continue,
        };
        if let Ok(mut t) = handle.last_seen.lock() {
            *t = Instant::now();
        }
        let replies = match serde_json::from_str::<Request>(&text) {
            Ok(req) => {
                let busy = Reply::Busy {
                    doing: req.doing().to_string(),
                };
                if send(&mut socket, &busy).await.is_err() {
                    break;
                }
                run(&handle, req).await
            }
            Err(e) => {
                let message = format!("malformed message: {e}");
                eprintln!("sudolog serve: session {id}: {message}");
                vec![Reply::Error { message }]
            }
        };
        let mut gone = false;
        for r in &replies {
            if let Reply::Error { message } = r {
                eprintln!("sudolog serve: session {id}: {message}");
            }
            if send(&mut socket, r).await.is_err() {
                gone = true;
                break;
            }
        }
        if gone {
            break;
        }
    }
    handle.connections.fetch_sub(1, Ordering::SeqCst);
    if let Ok(mut t) = handle.last_seen.lock() {
        *t = Instant::now();
    };
}

/// Hands a request to the session's thread and waits for its replies.
async fn run(handle: &Handle, req: Request) -> Vec<Reply> {
    let (tx, rx) = oneshot::channel();
    let sent = handle
        .jobs
        .lock()
        .map_err(|_| ())
        .and_then(|jobs| jobs.send((req, tx)).map_err(|_| ()));
    if sent.is_err() {
        return vec![Reply::Error {
            message: "this session has stopped; reload the page".into(),
        }];
    }
    rx.await.unwrap_or_else(|_| {
        vec![Reply::Error {
            message: "the session failed on this request; reload the page".into(),
        }]
    })
}

async fn send(socket: &mut WebSocket, reply: &Reply) -> Result<(), axum::Error> {
    let text = serde_json::to_string(reply).unwrap_or_else(|e| {
        format!(r#"{{"type":"error","message":"cannot encode a reply: {e}"}}"#)
    });
    socket.send(Message::Text(text.into())).await
}
