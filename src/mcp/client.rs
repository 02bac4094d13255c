//! A minimal JSON-RPC client over a [`Connection`]: request/response correlation, timeouts,
//! notifications, and polite answers to server→client requests. Results stay raw `Value`s.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::{oneshot, watch};

use super::connection::{Closer, Connection, MessageReceiver, MessageSender};
use super::transport::{CloseReason, Incoming, InvalidMessage, SendError, excerpt};

/// Why a request got no usable answer.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ClientError {
    #[error("{0}")]
    Send(SendError),
    #[error("error {code}: {message}")]
    Rpc {
        code: i64,
        message: String,
        data: Option<Value>,
    },
    #[error("the upstream {0}")]
    Closed(CloseReason),
    /// The very first thing the upstream said was not JSON-RPC.
    #[error("its first output is not JSON-RPC: {first_output:?}")]
    NotMcp { first_output: String },
    #[error("malformed response: {0}")]
    Malformed(String),
    #[error("a message was larger than {limit} bytes")]
    TooLarge { limit: usize },
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    /// We will not go on with this upstream (the reason names the setting to change).
    #[error("{0}")]
    Refused(String),
}

type Reply = Result<Value, ClientError>;

#[derive(Default)]
struct Inner {
    pending: HashMap<String, oneshot::Sender<Reply>>,
    /// Set once the connection is unusable; every later request fails with it at once.
    fatal: Option<ClientError>,
    /// Whether anything valid arrived yet (junk before that means "not an MCP server").
    seen_valid: bool,
}

struct Shared {
    inner: Mutex<Inner>,
    closed: watch::Sender<Option<CloseReason>>,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        match self.inner.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    /// Fails the one request a broken message was the answer to; false if it is not pending.
    fn fail_one(&self, id: Option<&Value>, err: ClientError) -> bool {
        let Some(id) = id else { return false };
        let tx = self.lock().pending.remove(&id_key(id));
        match tx {
            Some(tx) => {
                let _ = tx.send(Err(err));
                true
            }
            None => false,
        }
    }

    fn fail_all(&self, err: ClientError) {
        let pending = {
            let mut g = self.lock();
            if g.fatal.is_none() {
                g.fatal = Some(err.clone());
            }
            std::mem::take(&mut g.pending)
        };
        for (_, tx) in pending {
            let _ = tx.send(Err(err.clone()));
        }
    }
}

/// A request/response client. Dropping it shuts the upstream down.
pub struct Client {
    sender: MessageSender,
    closer: Closer,
    shared: Arc<Shared>,
    next_id: AtomicI64,
    closed_rx: watch::Receiver<Option<CloseReason>>,
    /// The per-request `_meta` of the stateless (2026-07-28) era, once negotiated.
    envelope: Mutex<Option<Value>>,
}

/// The map key of a JSON-RPC id (ids may be numbers or strings; `1` and `"1"` differ).
fn id_key(id: &Value) -> String {
    id.to_string()
}

impl Client {
    pub fn new(conn: Connection) -> Client {
        let (sender, receiver, closer) = conn.into_parts();
        let (closed_tx, closed_rx) = watch::channel(None);
        let shared = Arc::new(Shared {
            inner: Mutex::new(Inner::default()),
            closed: closed_tx,
        });
        tokio::spawn(dispatch(receiver, sender.clone(), shared.clone()));
        Client {
            sender,
            closer,
            shared,
            next_id: AtomicI64::new(1),
            closed_rx,
            envelope: Mutex::new(None),
        }
    }

    /// From now on, every request carries these `_meta` keys (the stateless era's protocol
    /// version, client info and capabilities); keys a caller sets itself win.
    pub fn set_envelope(&self, meta: Option<Value>) {
        match self.envelope.lock() {
            Ok(mut g) => *g = meta,
            Err(p) => *p.into_inner() = meta,
        }
    }

    fn with_envelope(&self, params: Option<Value>) -> Option<Value> {
        let env = match self.envelope.lock() {
            Ok(g) => g.clone(),
            Err(p) => p.into_inner().clone(),
        };
        let Some(Value::Object(env)) = env else {
            return params;
        };
        let mut params = params.unwrap_or_else(|| json!({}));
        if let Some(obj) = params.as_object_mut() {
            let meta = obj.entry("_meta").or_insert_with(|| json!({}));
            if let Some(meta) = meta.as_object_mut() {
                for (k, v) in env {
                    meta.entry(k).or_insert(v);
                }
            }
        }
        Some(params)
    }

    /// Send `method` with `params` and wait (at most `timeout`) for its result.
    pub async fn request(
        &self,
        method: &str,
        params: Option<Value>,
        timeout: Duration,
    ) -> Result<Value, ClientError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let key = id_key(&json!(id));
        let (tx, rx) = oneshot::channel();
        {
            let mut g = self.shared.lock();
            if let Some(e) = &g.fatal {
                return Err(e.clone());
            }
            g.pending.insert(key.clone(), tx);
        }
        let mut msg = json!({"jsonrpc": "2.0", "id": id, "method": method});
        let params = self.with_envelope(params);
        if let (Some(p), Some(obj)) = (params, msg.as_object_mut()) {
            obj.insert("params".into(), p);
        }
        if let Err(e) = self.sender.send(&msg).await {
            self.shared.lock().pending.remove(&key);
            return Err(ClientError::Send(e));
        }
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(reply)) => reply,
            Ok(Err(_)) => Err(self
                .shared
                .lock()
                .fatal
                .clone()
                .unwrap_or(ClientError::Malformed("the dispatcher stopped".into()))),
            Err(_) => {
                self.shared.lock().pending.remove(&key);
                Err(ClientError::Timeout(timeout))
            }
        }
    }

    /// Send a notification (no answer expected).
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), ClientError> {
        let mut msg = json!({"jsonrpc": "2.0", "method": method});
        if let (Some(p), Some(obj)) = (params, msg.as_object_mut()) {
            obj.insert("params".into(), p);
        }
        self.sender.send(&msg).await.map_err(ClientError::Send)
    }

    /// The close reason, waiting at most `wait` for the connection to end. Useful after a send
    /// failed because the child died: the exit status and stderr arrive a moment later.
    pub async fn close_reason(&self, wait: Duration) -> Option<CloseReason> {
        let mut rx = self.closed_rx.clone();
        let res = tokio::time::timeout(wait, rx.wait_for(Option::is_some)).await;
        match res {
            Ok(Ok(r)) => r.clone(),
            _ => None,
        }
    }

    /// Whether the upstream is a child process (for wording error hints).
    pub fn is_stdio(&self) -> bool {
        self.closer.is_stdio()
    }

    /// The last stderr lines of a stdio upstream so far.
    pub fn stderr_tail(&self) -> Vec<String> {
        self.closer.stderr_tail()
    }

    /// Shut the upstream down and wait for it to be gone.
    pub async fn shutdown(mut self) {
        self.closer.shutdown().await;
    }
}

async fn dispatch(mut receiver: MessageReceiver, sender: MessageSender, shared: Arc<Shared>) {
    while let Some(item) = receiver.recv().await {
        match item {
            Incoming::Message(Value::Array(batch)) => {
                for m in batch {
                    handle_message(m, &sender, &shared).await;
                }
            }
            Incoming::Message(m) => handle_message(m, &sender, &shared).await,
            // The client never asks for raw responses; parse one anyway if it comes.
            Incoming::Response(r) => {
                if let Ok(m) = crate::json::from_slice(&r.bytes) {
                    handle_message(m, &sender, &shared).await;
                }
            }
            Incoming::Invalid(InvalidMessage::TooLarge { limit, probe, .. }) => {
                // Some request's answer is gone for good; waiting would only end in a timeout.
                if !shared.fail_one(probe.response_id(), ClientError::TooLarge { limit }) {
                    shared.fail_all(ClientError::TooLarge { limit });
                }
            }
            Incoming::Invalid(InvalidMessage::NotJson { text, error, probe }) => {
                let seen_valid = shared.lock().seen_valid;
                if seen_valid
                    && shared.fail_one(
                        probe.response_id(),
                        ClientError::Malformed(format!("{error}: {text:?}")),
                    )
                {
                    continue;
                }
                if seen_valid {
                    tracing::warn!("upstream printed a non-JSON line ({error}): {text:?}");
                } else {
                    shared.fail_all(ClientError::NotMcp { first_output: text });
                }
            }
            Incoming::Closed(reason) => {
                shared.fail_all(ClientError::Closed(reason.clone()));
                let _ = shared.closed.send(Some(reason));
            }
        }
    }
}

async fn handle_message(m: Value, sender: &MessageSender, shared: &Shared) {
    let Some(obj) = m.as_object() else {
        return junk(&m, shared);
    };
    let method = obj.get("method").and_then(Value::as_str);
    let id = obj.get("id").filter(|v| !v.is_null());
    match (method, id) {
        (Some(method), Some(id)) => {
            shared.lock().seen_valid = true;
            // A server→client request (ping, sampling, roots, elicitation): we offer none of
            // these capabilities, so answer ping and decline the rest instead of leaving the
            // server waiting.
            let reply = if method == "ping" {
                json!({"jsonrpc": "2.0", "id": id, "result": {}})
            } else {
                json!({"jsonrpc": "2.0", "id": id, "error": {
                    "code": -32601,
                    "message": format!("mcp-gen-ui does not support `{}` here", excerpt(method, 100)),
                }})
            };
            if let Err(e) = sender.send(&reply).await {
                tracing::debug!("could not answer the upstream's `{method}` request: {e}");
            }
        }
        (Some(_), None) => {
            shared.lock().seen_valid = true; // a notification; discovery needs none
        }
        (None, Some(id)) => {
            let tx = {
                let mut g = shared.lock();
                g.seen_valid = true;
                g.pending.remove(&id_key(id))
            };
            let Some(tx) = tx else {
                tracing::debug!(
                    "upstream answered an unknown request id {}",
                    excerpt(&id.to_string(), 80)
                );
                return;
            };
            let _ = tx.send(reply_of(obj));
        }
        (None, None) => junk(&m, shared),
    }
}

fn reply_of(obj: &serde_json::Map<String, Value>) -> Reply {
    if let Some(err) = obj.get("error") {
        let code = err.get("code").and_then(Value::as_i64);
        let message = err.get("message").and_then(Value::as_str);
        return match (code, message) {
            (Some(code), Some(message)) => Err(ClientError::Rpc {
                code,
                message: excerpt(message, 500),
                data: err.get("data").cloned(),
            }),
            _ => Err(ClientError::Malformed(format!(
                "an error without a numeric `code` and a string `message`: {}",
                excerpt(&err.to_string(), 300)
            ))),
        };
    }
    match obj.get("result") {
        Some(r) => Ok(r.clone()),
        None => Err(ClientError::Malformed(format!(
            "a response with neither `result` nor `error`: {}",
            excerpt(&Value::Object(obj.clone()).to_string(), 300)
        ))),
    }
}

/// JSON that is not a JSON-RPC message.
fn junk(m: &Value, shared: &Shared) {
    let text = excerpt(&m.to_string(), 300);
    if shared.lock().seen_valid {
        tracing::warn!("upstream sent JSON that is not JSON-RPC: {text}");
    } else {
        shared.fail_all(ClientError::NotMcp { first_output: text });
    }
}
