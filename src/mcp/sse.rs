//! An incremental Server-Sent Events parser (the WHATWG `text/event-stream` rules), fed with
//! arbitrary byte chunks as they come off the network.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` field; `None` means the default type, `message`.
    pub event: Option<String>,
    /// All `data:` lines joined with `\n`.
    pub data: String,
    /// The `id:` field of this event, if it had one.
    pub id: Option<String>,
    /// The `retry:` field, in milliseconds.
    pub retry: Option<u64>,
}

impl SseEvent {
    /// The event type with the spec's default applied.
    pub fn kind(&self) -> &str {
        self.event.as_deref().unwrap_or("message")
    }
}

/// An event (or a single line) grew past the size cap.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("an SSE event is larger than {limit} bytes")]
pub struct SseTooLarge {
    pub limit: usize,
}

/// Incremental parser state. Feed bytes with [`SseParser::push`].
#[derive(Debug)]
pub struct SseParser {
    max: usize,
    line: Vec<u8>,
    /// Bytes seen on the current line, including any dropped while discarding: a line whose
    /// bytes were dropped is still not a blank line.
    line_len: usize,
    /// The previous chunk ended in `\r`: a leading `\n` in the next one belongs to it.
    after_cr: bool,
    event: Option<String>,
    data: String,
    has_data: bool,
    id: Option<String>,
    retry: Option<u64>,
    /// Skipping the rest of an oversized event until the next blank line.
    discarding: bool,
}

impl SseParser {
    /// `max` bounds one event's total size (line plus accumulated data).
    pub fn new(max: usize) -> Self {
        SseParser {
            max,
            line: Vec::new(),
            line_len: 0,
            after_cr: false,
            event: None,
            data: String::new(),
            has_data: false,
            id: None,
            retry: None,
            discarding: false,
        }
    }

    /// Feed a chunk; returns the events it completed, in order. An oversized event is dropped
    /// and reported in place as an error; parsing continues with the next event.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<Result<SseEvent, SseTooLarge>> {
        let mut out = Vec::new();
        let mut rest = chunk;
        // A "\r\n" split across reads may arrive with empty reads in between: only a byte
        // decides whether the "\n" half follows.
        if self.after_cr && !rest.is_empty() {
            self.after_cr = false;
            if let Some(tail) = rest.strip_prefix(b"\n") {
                rest = tail;
            }
        }
        while !rest.is_empty() {
            match rest.iter().position(|b| *b == b'\n' || *b == b'\r') {
                Some(i) => {
                    let (head, tail) = rest.split_at(i);
                    self.append(head);
                    let is_cr = tail.first() == Some(&b'\r');
                    rest = tail.get(1..).unwrap_or_default();
                    if is_cr {
                        match rest.first() {
                            Some(b'\n') => rest = rest.get(1..).unwrap_or_default(),
                            Some(_) => {}
                            None => self.after_cr = true,
                        }
                    }
                    let line = std::mem::take(&mut self.line);
                    let blank = self.line_len == 0;
                    self.line_len = 0;
                    if let Some(item) = self.line_done(&line, blank) {
                        out.push(item);
                    }
                }
                None => {
                    self.append(rest);
                    rest = &[];
                }
            }
        }
        out
    }

    /// The last event id seen on this stream (for `Last-Event-ID` when reconnecting).
    pub fn last_event_id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    /// The reconnection delay the server asked for, in milliseconds.
    pub fn retry(&self) -> Option<u64> {
        self.retry
    }

    /// Call at end of stream. Per the spec an unterminated final event is discarded; nothing
    /// is returned.
    pub fn finish(&mut self) {
        self.line.clear();
        self.line_len = 0;
        self.discarding = false;
        self.reset_event();
    }

    fn append(&mut self, bytes: &[u8]) {
        self.line_len += bytes.len();
        if self.discarding {
            return;
        }
        if self.line.len() + self.data.len() + bytes.len() > self.max {
            self.discarding = true;
            self.line.clear();
            return;
        }
        self.line.extend_from_slice(bytes);
    }

    fn line_done(&mut self, line: &[u8], blank: bool) -> Option<Result<SseEvent, SseTooLarge>> {
        if blank {
            if self.discarding {
                self.discarding = false;
                self.reset_event();
                return Some(Err(SseTooLarge { limit: self.max }));
            }
            return self.dispatch().map(Ok);
        }
        if self.discarding {
            return None;
        }
        let text = String::from_utf8_lossy(line);
        if text.starts_with(':') {
            return None; // a comment (often a keep-alive)
        }
        let (field, value) = match text.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (text.as_ref(), ""),
        };
        match field {
            "event" => self.event = Some(value.to_string()),
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
                if self.data.len() > self.max {
                    self.discarding = true;
                }
            }
            // An id containing NUL is ignored by the spec.
            "id" if !value.contains('\0') => self.id = Some(value.to_string()),
            "retry" => {
                if let Ok(ms) = value.parse::<u64>() {
                    self.retry = Some(ms);
                }
            }
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        if !self.has_data {
            // No data: the spec says reset the event type and dispatch nothing. An id or retry
            // alone still updates the stream state, which callers see on the next event.
            self.event = None;
            self.data.clear();
            return None;
        }
        let ev = SseEvent {
            event: self.event.take(),
            data: std::mem::take(&mut self.data),
            id: self.id.clone(),
            retry: self.retry,
        };
        self.has_data = false;
        Some(ev)
    }

    fn reset_event(&mut self) {
        self.event = None;
        self.data.clear();
        self.has_data = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_all(input: &[u8], chunk: usize) -> Vec<Result<SseEvent, SseTooLarge>> {
        let mut p = SseParser::new(1 << 20);
        let mut out = Vec::new();
        for c in input.chunks(chunk.max(1)) {
            out.extend(p.push(c));
        }
        out
    }

    fn ok(input: &[u8], chunk: usize) -> Vec<SseEvent> {
        parse_all(input, chunk)
            .into_iter()
            .map(|r| r.unwrap())
            .collect()
    }

    #[test]
    fn multi_line_data_is_joined_with_newlines() {
        for chunk in [1, 2, 5, 1000] {
            let ev = ok(b"data: first\ndata:second\ndata:  third\n\n", chunk);
            assert_eq!(ev.len(), 1, "chunk {chunk}");
            assert_eq!(ev[0].data, "first\nsecond\n third");
            assert_eq!(ev[0].kind(), "message");
        }
    }

    #[test]
    fn crlf_cr_and_lf_line_endings_are_equivalent() {
        let want = vec![
            SseEvent {
                event: Some("endpoint".into()),
                data: "/messages?sessionId=1".into(),
                ..Default::default()
            },
            SseEvent {
                data: "{}".into(),
                ..Default::default()
            },
        ];
        for input in [
            &b"event: endpoint\r\ndata: /messages?sessionId=1\r\n\r\ndata: {}\r\n\r\n"[..],
            &b"event: endpoint\rdata: /messages?sessionId=1\r\rdata: {}\r\r"[..],
            &b"event: endpoint\ndata: /messages?sessionId=1\n\ndata: {}\n\n"[..],
        ] {
            for chunk in [1, 3, 7, 1000] {
                assert_eq!(ok(input, chunk), want, "{input:?} in chunks of {chunk}");
            }
        }
    }

    #[test]
    fn comments_and_unknown_fields_are_ignored() {
        let ev = ok(
            b": keep-alive\n\n:another\nfoo: bar\ndata: x\n: mid-event comment\n\n",
            4,
        );
        assert_eq!(ev.len(), 1);
        assert_eq!(ev[0].data, "x");
    }

    #[test]
    fn ids_persist_and_retry_is_parsed() {
        let ev = ok(
            b"id: 7\nretry: 1500\ndata: a\n\ndata: b\n\nid\ndata: c\n\n",
            3,
        );
        assert_eq!(ev[0].id.as_deref(), Some("7"));
        assert_eq!(ev[0].retry, Some(1500));
        // The last event id carries over to later events until changed.
        assert_eq!(ev[1].id.as_deref(), Some("7"));
        // A bare `id` field sets it to the empty string.
        assert_eq!(ev[2].id.as_deref(), Some(""));
    }

    #[test]
    fn event_without_data_is_not_dispatched_and_resets_type() {
        let ev = ok(b"event: ping\n\ndata: real\n\n", 2);
        assert_eq!(ev.len(), 1);
        assert_eq!(ev[0].event, None);
        assert_eq!(ev[0].data, "real");
    }

    #[test]
    fn field_without_space_and_empty_data() {
        let ev = ok(b"data\n\ndata:\ndata:\n\n", 1);
        assert_eq!(ev.len(), 2);
        assert_eq!(ev[0].data, "");
        assert_eq!(ev[1].data, "\n");
    }

    #[test]
    fn crlf_split_by_an_empty_read_is_one_line_end() {
        let mut p = SseParser::new(1024);
        let mut out = p.push(b"data: a\r");
        out.extend(p.push(b""));
        out.extend(p.push(b"\ndata: b\r\n\r\n"));
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out[0].as_ref().unwrap().data, "a\nb");
    }

    #[test]
    fn unterminated_event_is_discarded_at_end() {
        let mut p = SseParser::new(1024);
        assert!(p.push(b"data: partial").is_empty());
        p.finish();
        assert!(p.push(b"\n\n").is_empty());
    }

    #[test]
    fn oversized_event_is_reported_and_parsing_continues() {
        let mut p = SseParser::new(100);
        let mut input = b"data: ".to_vec();
        input.extend(std::iter::repeat_n(b'x', 500));
        input.extend_from_slice(b"\ndata: more\n\ndata: small\n\n");
        let mut out = Vec::new();
        for c in input.chunks(9) {
            out.extend(p.push(c));
        }
        assert_eq!(out.len(), 2);
        assert_eq!(out[0], Err(SseTooLarge { limit: 100 }));
        assert_eq!(out[1].as_ref().unwrap().data, "small");
    }

    #[test]
    fn many_data_lines_cannot_grow_past_the_cap() {
        let mut p = SseParser::new(64);
        let mut out = Vec::new();
        for _ in 0..100 {
            out.extend(p.push(b"data: 0123456789\n"));
        }
        out.extend(p.push(b"\n"));
        assert_eq!(out, vec![Err(SseTooLarge { limit: 64 })]);
    }

    proptest::proptest! {
        /// However the network splits the bytes, the same events come out.
        #[test]
        fn chunking_never_changes_the_result(
            events in proptest::collection::vec(("[a-z]{0,6}", "[ -~]{0,20}", 0usize..3), 0..8),
            cuts in proptest::collection::vec(0usize..400, 0..12),
        ) {
            let mut text = String::new();
            for (i, (kind, data, ending)) in events.iter().enumerate() {
                let nl = ["\n", "\r\n", "\r"][*ending];
                if !kind.is_empty() {
                    text.push_str(&format!("event: {kind}{nl}"));
                }
                text.push_str(&format!(": comment {i}{nl}data: {data}{nl}data:{i}{nl}{nl}"));
            }
            let bytes = text.as_bytes();
            let whole = parse_all(bytes, usize::MAX);
            let mut points: Vec<usize> = cuts.into_iter().map(|c| c.min(bytes.len())).collect();
            points.sort_unstable();
            let mut p = SseParser::new(1 << 20);
            let mut pieces = Vec::new();
            let mut start = 0;
            for end in points.into_iter().chain([bytes.len()]) {
                pieces.extend(p.push(&bytes[start..end]));
                start = end;
            }
            proptest::prop_assert_eq!(&pieces, &whole);
            proptest::prop_assert_eq!(whole.len(), events.len());
        }
    }
}
