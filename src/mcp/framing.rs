//! Newline-delimited framing with a size cap, so one absurd line can never exhaust memory.

use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tokio::io::AsyncBufRead;

use crate::json::{IdScanner, Probe};

/// How much of an oversized line is kept for the error message.
const PREFIX_KEEP: usize = 200;

/// One frame read from the stream.
#[derive(Debug, PartialEq)]
pub(crate) enum Frame {
    /// A complete line without its terminator (`\n` or `\r\n`).
    Line(Vec<u8>),
    /// A line longer than the cap; only its start was kept, the rest was skipped (but scanned
    /// for its JSON-RPC `id` and `method`, so that its sender can be answered).
    TooLarge { prefix: Vec<u8>, probe: Probe },
}

/// Reads `\n`-terminated lines of at most `max` bytes.
pub(crate) struct LineReader<R> {
    inner: R,
    max: usize,
    buf: Vec<u8>,
    /// Set while skipping the rest of an oversized line: what it says about its id.
    discarding: Option<IdScanner>,
}

impl<R: AsyncBufRead + Unpin> LineReader<R> {
    pub(crate) fn new(inner: R, max: usize) -> Self {
        LineReader {
            inner,
            max,
            buf: Vec::new(),
            discarding: None,
        }
    }

    /// The next frame, or `None` at end of stream. A final line without a terminator counts.
    #[cfg(test)]
    pub(crate) async fn next(&mut self) -> std::io::Result<Option<Frame>> {
        std::future::poll_fn(|cx| self.poll_next(cx)).await
    }

    /// The next frame, or `None` at end of stream (a final line without a terminator counts);
    /// cancel-safe (a line read in part
    /// stays here for the next poll).
    pub(crate) fn poll_next(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<std::io::Result<Option<Frame>>> {
        let LineReader {
            inner,
            max,
            buf,
            discarding,
        } = self;
        loop {
            let available = ready!(Pin::new(&mut *inner).poll_fill_buf(cx))?;
            if available.is_empty() {
                if let Some(scanner) = discarding.take() {
                    return Poll::Ready(Ok(Some(Frame::TooLarge {
                        prefix: std::mem::take(buf),
                        probe: scanner.finish(),
                    })));
                }
                if buf.is_empty() {
                    return Poll::Ready(Ok(None));
                }
                return Poll::Ready(Ok(Some(Frame::Line(finish(std::mem::take(buf))))));
            }
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.unwrap_or(available.len());
            let chunk = available.get(..take).unwrap_or_default();
            if let Some(scanner) = discarding {
                scanner.feed(chunk);
            } else if buf.len() + take > *max {
                // Keep a short prefix for the report and drop everything else, but find the
                // message's id on the way.
                let mut scanner = IdScanner::new();
                scanner.feed(buf);
                scanner.feed(chunk);
                *discarding = Some(scanner);
                let room = PREFIX_KEEP.saturating_sub(buf.len());
                let keep = available.get(..take.min(room)).unwrap_or_default();
                buf.extend_from_slice(keep);
                buf.truncate(PREFIX_KEEP);
            } else if buf.is_empty() && newline.is_some() {
                // A whole line in the buffer (the usual case): one allocation of its size.
                *buf = chunk.to_vec();
            } else {
                buf.extend_from_slice(chunk);
            }
            match newline {
                Some(i) => {
                    Pin::new(&mut *inner).consume(i + 1);
                    let line = std::mem::take(buf);
                    if let Some(scanner) = discarding.take() {
                        return Poll::Ready(Ok(Some(Frame::TooLarge {
                            prefix: line,
                            probe: scanner.finish(),
                        })));
                    }
                    return Poll::Ready(Ok(Some(Frame::Line(finish(line)))));
                }
                None => {
                    let n = available.len();
                    Pin::new(&mut *inner).consume(n);
                }
            }
        }
    }
}

fn finish(mut line: Vec<u8>) -> Vec<u8> {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn frames(input: &[u8], max: usize, chunk: usize) -> Vec<Frame> {
        // A tiny buffer forces lines to span many reads.
        let reader = tokio::io::BufReader::with_capacity(chunk, input);
        let mut lr = LineReader::new(reader, max);
        let mut out = Vec::new();
        while let Some(f) = lr.next().await.unwrap() {
            out.push(f);
        }
        out
    }

    #[tokio::test]
    async fn splits_lines_and_strips_crlf() {
        for chunk in [1, 3, 64] {
            let f = frames(b"{\"a\":1}\r\n\n{\"b\":2}\nlast", 100, chunk).await;
            assert_eq!(
                f,
                vec![
                    Frame::Line(b"{\"a\":1}".to_vec()),
                    Frame::Line(Vec::new()),
                    Frame::Line(b"{\"b\":2}".to_vec()),
                    Frame::Line(b"last".to_vec()),
                ],
                "chunk size {chunk}"
            );
        }
    }

    #[tokio::test]
    async fn oversized_line_is_skipped_and_reading_continues() {
        let mut input = vec![b'x'; 5000];
        input.extend_from_slice(b"\nok\n");
        for chunk in [7, 4096] {
            let f = frames(&input, 1000, chunk).await;
            assert_eq!(f.len(), 2, "chunk size {chunk}");
            match &f[0] {
                Frame::TooLarge { prefix, .. } => {
                    assert!(prefix.len() <= PREFIX_KEEP && !prefix.is_empty())
                }
                other => panic!("expected TooLarge, got {other:?}"),
            }
            assert_eq!(f[1], Frame::Line(b"ok".to_vec()));
        }
    }

    #[tokio::test]
    async fn oversized_line_still_tells_its_id() {
        let input = format!(
            "{{\"jsonrpc\":\"2.0\",\"result\":{{\"t\":\"{}\"}},\"id\":17}}\n",
            "x".repeat(5000)
        );
        for chunk in [7, 4096] {
            let f = frames(input.as_bytes(), 1000, chunk).await;
            match &f[..] {
                [Frame::TooLarge { probe, .. }] => {
                    assert_eq!(probe.response_id(), Some(&serde_json::json!(17)))
                }
                other => panic!("expected TooLarge, got {other:?}"),
            }
        }
    }

    #[tokio::test]
    async fn line_exactly_at_the_cap_passes() {
        let mut input = vec![b'y'; 1000];
        input.push(b'\n');
        let f = frames(&input, 1000, 64).await;
        assert_eq!(f, vec![Frame::Line(vec![b'y'; 1000])]);
    }

    #[tokio::test]
    async fn oversized_unterminated_tail_is_reported() {
        let f = frames(&[b'z'; 300], 100, 16).await;
        assert!(matches!(f.as_slice(), [Frame::TooLarge { .. }]));
    }

    /// A case the property below once found (it used to live in proptest-regressions/): an empty
    /// line, then a `\r\n` read one byte at a time with a one-byte cap.
    #[tokio::test]
    async fn crlf_after_an_empty_line_read_byte_by_byte() {
        let f = frames(b"\n\r\n", 1, 1).await;
        assert_eq!(f, vec![Frame::Line(Vec::new()), Frame::Line(Vec::new())]);
    }

    proptest::proptest! {
        /// Any bytes, any cap, any buffer size: no panic, and without oversized lines the
        /// lines put back together are the input.
        #[test]
        fn reassembles_any_input(
            input in proptest::collection::vec(proptest::prop_oneof![
                proptest::strategy::Just(b'\n'), proptest::strategy::Just(b'\r'), proptest::num::u8::ANY
            ], 0..300),
            max in 1usize..64,
            chunk in 1usize..17,
        ) {
            let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
            let f = rt.block_on(frames(&input, max, chunk));
            if f.iter().all(|x| matches!(x, Frame::Line(_))) {
                let mut joined = Vec::new();
                for (i, x) in f.iter().enumerate() {
                    if let Frame::Line(l) = x {
                        if i > 0 {
                            joined.push(b'\n');
                        }
                        joined.extend_from_slice(l);
                    }
                }
                // Terminators were `\n` or `\r\n`: split the input the same way.
                let mut body = input.clone();
                if body.last() == Some(&b'\n') {
                    body.pop();
                }
                let want: Vec<u8> = body
                    .split(|b| *b == b'\n')
                    .map(|l| l.strip_suffix(b"\r").unwrap_or(l).to_vec())
                    .collect::<Vec<_>>()
                    .join(&b'\n');
                let want = if input.is_empty() { Vec::new() } else { want };
                proptest::prop_assert_eq!(joined, want);
            }
        }
    }
}
