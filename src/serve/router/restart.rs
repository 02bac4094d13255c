//! The router's side of the upstream's life: requests queued while it (re)starts, our own
//! `initialize` replayed to a restarted upstream, and the answers for requests it lost, refused
//! or never took (book: serve.md, "restarts").

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::*;

impl Router {
    pub(super) fn enqueue(&mut self, msg: Value, out: &mut Vec<Out>) {
        let now = Instant::now();
        if self.link == Link::Down
            && let Some((crashes, due)) = self.restart
            && due > now + self.opts.wait_limit
        {
            // The restart comes after this request would have given up waiting.
            if let Some(id) = msg.get("id").cloned()
                && msg.get("method").is_some()
            {
                let reason = format!(
                    "failed {crashes} times in a row; the next restart is in {} ms, later than \
                     a request waits ({} ms, [upstream] timeout_ms)",
                    due.saturating_duration_since(now).as_millis(),
                    self.opts.wait_limit.as_millis()
                );
                out.push(Out::Host(self.unavailable(id, &reason)));
            }
            return;
        }
        if self.queue.len() >= MAX_QUEUED {
            if let Some(id) = msg.get("id").cloned()
                && msg.get("method").is_some()
            {
                out.push(Out::Host(self.unavailable(id, "is restarting")));
            }
            return;
        }
        self.queue.push((msg, now));
    }

    /// When the oldest request waiting for the upstream reaches its wait limit.
    pub fn queue_deadline(&self) -> Option<Instant> {
        self.queue
            .iter()
            .filter(|(m, _)| m.get("id").is_some() && m.get("method").is_some())
            .map(|(_, t)| *t + self.opts.wait_limit)
            .min()
    }

    /// Answers the requests that waited for the upstream as long as they may.
    pub fn overdue_queue(&mut self) -> Vec<Out> {
        let mut out = Vec::new();
        let limit = self.opts.wait_limit;
        let (overdue, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut self.queue)
            .into_iter()
            .partition(|(m, t)| {
                m.get("id").is_some() && m.get("method").is_some() && t.elapsed() >= limit
            });
        self.queue = kept;
        for (msg, _) in overdue {
            if let Some(id) = msg.get("id").cloned() {
                let reason = format!(
                    "was not back within {} ms ([upstream] timeout_ms)",
                    limit.as_millis()
                );
                tracing::warn!(target: "serve", id = %id, "request failed: the upstream {reason}");
                out.push(Out::Host(self.unavailable(id, &reason)));
            }
        }
        out
    }

    /// Whether the upstream answered a host request other than `initialize` since it last
    /// (re)started.
    pub fn healthy(&self) -> bool {
        self.answered
    }

    pub(super) fn replayed_init_done(&mut self, msg: &Value, out: &mut Vec<Out>) {
        self.link = Link::Up;
        if let Some(err) = msg.get("error") {
            tracing::error!(target: "serve", error = %err, "the restarted upstream refused the replayed initialize");
            let reason = format!("refused initialize after a restart: {err}");
            self.fail_queue(&reason, out);
            return;
        }
        tracing::info!(target: "serve", "upstream restarted and re-initialized");
        out.push(Out::Upstream(
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ));
        self.flush_queue(out);
    }

    pub(super) fn flush_queue(&mut self, out: &mut Vec<Out>) {
        for (msg, _) in std::mem::take(&mut self.queue) {
            self.host_message(msg, out);
        }
    }

    pub(super) fn fail_queue(&mut self, reason: &str, out: &mut Vec<Out>) {
        for (msg, _) in std::mem::take(&mut self.queue) {
            if msg.get("method").is_some()
                && let Some(id) = msg.get("id").cloned()
            {
                out.push(Out::Host(self.unavailable(id, reason)));
            }
        }
    }

    pub(super) fn unavailable(&self, id: Value, reason: &str) -> Value {
        error_response(
            id,
            UPSTREAM_UNAVAILABLE,
            format!(
                "the upstream MCP server {} {reason}; mcp-gen-ui serve is restarting it. Retry the request",
                self.opts.upstream
            ),
            Some(json!({"upstream": self.opts.upstream})),
        )
    }

    /// The upstream died or failed to start `crashes` times in a row and will be restarted in
    /// `delay`. Requests wait for that restart, unless it is due after their wait limit: then
    /// they are answered at once until the upstream is up again.
    pub fn set_restart_delay(&mut self, crashes: u32, delay: Duration) {
        self.restart = Some((crashes, Instant::now() + delay));
    }

    /// A message from the upstream that could not be used (larger than the limit, not JSON,
    /// nested too deep): the request it answers gets an error instead of waiting forever, and
    /// a request of the upstream's own gets an error answer.
    pub fn upstream_unusable(&mut self, probe: &crate::json::Probe, reason: &str) -> Vec<Out> {
        let mut out = Vec::new();
        if let Some(id) = probe.response_id()
            && id.as_u64().is_some_and(|u| self.pending.contains_key(&u))
        {
            let err = error_response(
                id.clone(),
                INTERNAL_ERROR,
                format!(
                    "the answer of the upstream MCP server {} to this request was {reason}; it was discarded",
                    self.opts.upstream
                ),
                Some(json!({"upstream": self.opts.upstream})),
            );
            self.upstream_message(err, &mut out);
        } else if let Some(id) = probe.request_id() {
            out.push(Out::Upstream(error_response(
                id.clone(),
                INVALID_REQUEST,
                format!("mcp-gen-ui serve could not forward this request: it was {reason}"),
                None,
            )));
        }
        out
    }

    /// The upstream connection is up (first start or a restart).
    pub fn upstream_ready(&mut self) -> Vec<Out> {
        self.restart = None;
        self.answered = false;
        let mut out = Vec::new();
        match self.init_params.clone() {
            Some(params) => {
                let uid = self.next_upstream_id;
                self.next_upstream_id += 1;
                self.pending.insert(
                    uid,
                    Pending {
                        host_id: Value::Null,
                        kind: Kind::ReplayInit,
                        caps: RequestCaps {
                            stateless: false,
                            ui: self.ui,
                        },
                        since: Some(Instant::now()),
                    },
                );
                self.track_initialize(Some(Instant::now()));
                self.link = Link::Replaying;
                out.push(Out::Upstream(json!({
                    "jsonrpc": "2.0", "id": uid, "method": "initialize", "params": params
                })));
            }
            None => {
                self.link = Link::Up;
                self.flush_queue(&mut out);
            }
        }
        out
    }

    /// The upstream went away: every host request in flight fails with a clear error, and the
    /// host is told that the upstream's own requests to it are void.
    pub fn upstream_lost(&mut self, reason: &str) -> Vec<Out> {
        let mut out = Vec::new();
        self.link = Link::Down;
        self.oldest_init = None;
        let mut pending: Vec<(u64, Pending)> = self.pending.drain().collect();
        pending.sort_by_key(|(uid, _)| *uid);
        for (_, p) in pending {
            if p.kind != Kind::ReplayInit {
                tracing::warn!(target: "serve", id = %p.host_id, "request failed: the upstream {reason}");
                out.push(Out::Host(self.unavailable(p.host_id, reason)));
            }
        }
        self.host_ids.clear();
        let mut orphans: Vec<u64> = self.server_requests.drain().map(|(h, _)| h).collect();
        orphans.sort_unstable();
        for hid in orphans {
            out.push(Out::Host(json!({
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": hid, "reason": "the upstream MCP server restarted"}
            })));
        }
        self.server_ids.clear();
        // Whatever waited for this upstream to come up will not get it either.
        self.fail_queue(&format!("{reason} before it could answer"), &mut out);
        out
    }

    /// The upstream refused to take a request (an HTTP error status): answer it for the host.
    /// When the upstream's reply held a JSON-RPC error, that error is what the host gets, with
    /// the upstream's HTTP status ([`Out::HostRefused`]); otherwise an internal error that
    /// says what happened.
    pub fn send_failed(
        &mut self,
        upstream_id: &Value,
        reason: &str,
        status: Option<u16>,
        rpc: Option<&Value>,
    ) -> Vec<Out> {
        let mut out = Vec::new();
        let Some(p) = upstream_id.as_u64().and_then(|u| self.pending.remove(&u)) else {
            return out;
        };
        if p.kind == Kind::ReplayInit {
            self.link = Link::Up;
            self.fail_queue(
                &format!("refused initialize after a restart ({reason})"),
                &mut out,
            );
            return out;
        }
        self.host_ids.remove(&id_key(&p.host_id));
        let upstream_error = rpc.filter(|r| r.get("error").is_some()).cloned();
        let msg = match upstream_error {
            // The upstream's own error response, as it wrote it, with the host's id.
            Some(mut reply) => {
                if let Some(obj) = reply.as_object_mut() {
                    obj.insert("id".into(), p.host_id);
                }
                reply
            }
            None => error_response(
                p.host_id,
                INTERNAL_ERROR,
                format!(
                    "the upstream MCP server {} could not take the request: {reason}",
                    self.opts.upstream
                ),
                Some(json!({"upstream": self.opts.upstream})),
            ),
        };
        out.push(match status {
            Some(status) => Out::HostRefused(msg, status),
            None => Out::Host(msg),
        });
        out
    }

    /// A restart attempt failed: queued requests fail now rather than wait for the next one.
    pub fn restart_failed(&mut self, reason: &str) -> Vec<Out> {
        let mut out = Vec::new();
        self.fail_queue(reason, &mut out);
        out
    }

    /// Fails an `initialize` the upstream has not answered within `limit` (an upstream that
    /// never answers must not leave the host waiting forever at start-up).
    /// `said`: what the upstream printed on stderr, worded for the error (may be empty).
    pub fn overdue_initialize(&mut self, limit: Duration, said: &str) -> Vec<Out> {
        let mut out = Vec::new();
        let overdue: Vec<u64> = self
            .pending
            .iter()
            .filter(|(_, p)| p.since.is_some_and(|t| t.elapsed() >= limit))
            .map(|(u, _)| *u)
            .collect();
        for uid in overdue {
            let Some(p) = self.pending.remove(&uid) else {
                continue;
            };
            let reason = format!(
                "did not answer initialize within {} s (raise [upstream] timeout_ms if it is just slow){said}",
                limit.as_secs_f64()
            );
            tracing::error!(target: "serve", upstream = %self.opts.upstream, "upstream {reason}");
            if p.kind == Kind::ReplayInit {
                self.link = Link::Up;
                self.fail_queue(&reason, &mut out);
                continue;
            }
            self.host_ids.remove(&id_key(&p.host_id));
            out.push(Out::Host(error_response(
                p.host_id,
                UPSTREAM_UNAVAILABLE,
                format!("the upstream MCP server {} {reason}", self.opts.upstream),
                Some(json!({"upstream": self.opts.upstream})),
            )));
        }
        self.oldest_init = self.pending.values().filter_map(|p| p.since).min();
        out
    }
}
