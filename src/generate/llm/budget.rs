//! One total time budget per generation, shared by every call and retry, enforced by dropping
//! (and so cancelling) the request in flight when it runs out.

use std::time::Duration;

use tokio::time::Instant;

use super::provider::{ChatRequest, ChatResponse, ErrorKind, Provider, ProviderError, Usage};

/// About thirty years: the stand-in for a budget too large for the clock.
const FAR_FUTURE: Duration = Duration::from_secs(86_400 * 365 * 30);

/// The deadline of one tool's generation.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    total: Duration,
    deadline: Instant,
}

impl Budget {
    pub fn start(total: Duration) -> Self {
        let now = Instant::now();
        // An enormous `timeout_ms` would overflow the clock: it means "no limit worth counting".
        let deadline = now
            .checked_add(total)
            .or_else(|| now.checked_add(FAR_FUTURE))
            .unwrap_or(now);
        Budget { total, deadline }
    }

    pub fn remaining(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    pub fn total(&self) -> Duration {
        self.total
    }

    fn exhausted(&self) -> ProviderError {
        ProviderError::new(
            ErrorKind::Timeout,
            format!(
                "the time budget of {} ran out (raise [llm] timeout_ms)",
                human(self.total)
            ),
        )
    }
}

/// How retries back off when the provider gives no Retry-After.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    pub max_retries: u32,
    pub base_delay: Duration,
    pub max_delay: Duration,
}

impl RetryPolicy {
    pub fn new(max_retries: u32) -> Self {
        RetryPolicy {
            max_retries,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
        }
    }
}

/// The result of one logical call: the answer or the last error, plus what was spent.
pub struct Called {
    pub result: Result<ChatResponse, ProviderError>,
    /// Tokens of every answer received (failed answers report none).
    pub usage: Usage,
    pub attempts: u32,
    /// One line per retry, for the summary.
    pub notes: Vec<String>,
}

/// Calls the provider until it answers, a failure is not retryable, retries run out, or the
/// budget does. A wait that would outlast the budget is not started: the error is returned at
/// once, so a long Retry-After never holds the run.
pub async fn call_with_retries(
    provider: &dyn Provider,
    req: &ChatRequest,
    budget: &Budget,
    policy: &RetryPolicy,
) -> Called {
    let mut attempts = 0;
    let mut delay = policy.base_delay;
    let mut notes = Vec::new();
    let mut usage = Usage::default();
    loop {
        attempts += 1;
        if budget.remaining().is_zero() {
            return Called {
                result: Err(budget.exhausted()),
                usage,
                attempts,
                notes,
            };
        }
        let outcome = tokio::time::timeout_at(budget.deadline, provider.chat(req)).await;
        let err = match outcome {
            Err(_elapsed) => {
                return Called {
                    result: Err(budget.exhausted()),
                    usage,
                    attempts,
                    notes,
                };
            }
            Ok(Ok(resp)) => {
                usage += resp.usage;
                return Called {
                    result: Ok(resp),
                    usage,
                    attempts,
                    notes,
                };
            }
            Ok(Err(e)) => e,
        };
        if !err.retryable() || attempts > policy.max_retries {
            return Called {
                result: Err(err),
                usage,
                attempts,
                notes,
            };
        }
        let wait = err.retry_after.unwrap_or(delay);
        delay = (delay * 2).min(policy.max_delay);
        if wait >= budget.remaining() {
            let mut err = err;
            err.message.push_str(&format!(
                " (no retry: waiting {} would exceed the time budget)",
                human(wait)
            ));
            return Called {
                result: Err(err),
                usage,
                attempts,
                notes,
            };
        }
        tracing::info!(
            provider = provider.name(),
            attempt = attempts,
            wait_ms = wait.as_millis() as u64,
            "retrying after: {err}"
        );
        notes.push(format!(
            "attempt {attempts} failed ({err}); retried after {}",
            human(wait)
        ));
        tokio::time::sleep(wait).await;
    }
}

/// "1.5 s", "180 s", "250 ms".
pub fn human(d: Duration) -> String {
    if d < Duration::from_secs(1) {
        format!("{} ms", d.as_millis())
    } else if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_enormous_budget_does_not_overflow_the_clock() {
        let b = super::Budget::start(std::time::Duration::from_millis(u64::MAX));
        assert!(b.remaining() > std::time::Duration::from_secs(86_400 * 365));
    }

    use super::*;
    use crate::generate::llm::provider::StopReason;
    use futures_util::future::BoxFuture;
    use std::sync::Mutex;

    /// A provider that plays a script of answers, then hangs: the budget and retry logic are
    /// what is under test here (the HTTP providers have their own tests against fake servers).
    struct Script {
        answers: Mutex<Vec<Result<ChatResponse, ProviderError>>>,
        calls: Mutex<u32>,
    }

    impl Provider for Script {
        fn name(&self) -> &'static str {
            "script"
        }
        fn model(&self) -> &str {
            "m"
        }
        fn chat<'a>(
            &'a self,
            _req: &'a ChatRequest,
        ) -> BoxFuture<'a, Result<ChatResponse, ProviderError>> {
            Box::pin(async move {
                *self.calls.lock().unwrap() += 1;
                let next = {
                    let mut a = self.answers.lock().unwrap();
                    if a.is_empty() {
                        None
                    } else {
                        Some(a.remove(0))
                    }
                };
                match next {
                    Some(r) => r,
                    None => std::future::pending().await,
                }
            })
        }
    }

    fn ok() -> Result<ChatResponse, ProviderError> {
        Ok(ChatResponse {
            text: "fine".into(),
            stop: StopReason::Complete,
            usage: Usage {
                input_tokens: 1,
                output_tokens: 2,
            },
        })
    }

    fn err(kind: ErrorKind, retry_after: Option<Duration>) -> Result<ChatResponse, ProviderError> {
        let mut e = ProviderError::new(kind, "boom");
        e.retry_after = retry_after;
        Err(e)
    }

    fn req() -> ChatRequest {
        ChatRequest {
            system: "s".into(),
            user: "u".into(),
            max_tokens: 1,
            temperature: 0.0,
        }
    }

    fn script(answers: Vec<Result<ChatResponse, ProviderError>>) -> Script {
        Script {
            answers: Mutex::new(answers),
            calls: Mutex::new(0),
        }
    }

    fn policy(max_retries: u32) -> RetryPolicy {
        RetryPolicy {
            max_retries,
            base_delay: Duration::from_millis(50),
            max_delay: Duration::from_millis(400),
        }
    }

    #[tokio::test]
    async fn retries_retryable_errors_honouring_retry_after() {
        let p = script(vec![
            err(ErrorKind::RateLimited, Some(Duration::from_millis(300))),
            err(ErrorKind::Server, None),
            ok(),
        ]);
        let budget = Budget::start(Duration::from_secs(60));
        let t0 = Instant::now();
        let c = call_with_retries(&p, &req(), &budget, &policy(2)).await;
        assert!(c.result.is_ok());
        assert_eq!(c.attempts, 3);
        assert_eq!(c.notes.len(), 2);
        // 300 ms from Retry-After, then the 50 ms base backoff.
        assert!(
            t0.elapsed() >= Duration::from_millis(350),
            "{:?}",
            t0.elapsed()
        );
        assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
        assert_eq!(c.usage.output_tokens, 2);
    }

    #[tokio::test]
    async fn does_not_retry_what_cannot_pass() {
        let p = script(vec![err(ErrorKind::Auth, None), ok()]);
        let c = call_with_retries(
            &p,
            &req(),
            &Budget::start(Duration::from_secs(60)),
            &policy(5),
        )
        .await;
        assert_eq!(c.result.unwrap_err().kind, ErrorKind::Auth);
        assert_eq!(*p.calls.lock().unwrap(), 1);
    }

    #[tokio::test]
    async fn stops_after_max_retries() {
        let p = script(vec![
            err(ErrorKind::Server, None),
            err(ErrorKind::Server, None),
            err(ErrorKind::Server, None),
            ok(),
        ]);
        let c = call_with_retries(
            &p,
            &req(),
            &Budget::start(Duration::from_secs(60)),
            &policy(1),
        )
        .await;
        assert_eq!(c.result.unwrap_err().kind, ErrorKind::Server);
        assert_eq!(c.attempts, 2);
    }

    #[tokio::test]
    async fn a_hanging_call_is_cut_at_the_budget() {
        let p = script(vec![]);
        let t0 = Instant::now();
        let c = call_with_retries(
            &p,
            &req(),
            &Budget::start(Duration::from_millis(500)),
            &policy(3),
        )
        .await;
        let e = c.result.unwrap_err();
        assert_eq!(e.kind, ErrorKind::Timeout);
        assert!(e.message.contains("500 ms"), "{e}");
        assert!(t0.elapsed() >= Duration::from_millis(500));
        assert!(t0.elapsed() < Duration::from_secs(3), "{:?}", t0.elapsed());
    }

    #[tokio::test]
    async fn a_retry_after_beyond_the_budget_fails_at_once() {
        let p = script(vec![
            err(ErrorKind::RateLimited, Some(Duration::from_secs(30))),
            ok(),
        ]);
        let t0 = Instant::now();
        let c = call_with_retries(
            &p,
            &req(),
            &Budget::start(Duration::from_secs(10)),
            &policy(3),
        )
        .await;
        let e = c.result.unwrap_err();
        assert_eq!(e.kind, ErrorKind::RateLimited);
        assert!(e.message.contains("would exceed"), "{e}");
        assert!(t0.elapsed() < Duration::from_secs(5));
        assert_eq!(*p.calls.lock().unwrap(), 1);
    }

    #[test]
    fn human_durations() {
        assert_eq!(human(Duration::from_millis(250)), "250 ms");
        assert_eq!(human(Duration::from_secs(180)), "180 s");
        assert_eq!(human(Duration::from_millis(1500)), "1.5 s");
    }
}
