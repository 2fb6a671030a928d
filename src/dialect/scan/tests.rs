//! The scanner's own tests (the fast paths' are beside each decoder).

use super::*;

/// A fast path that skips one array of numbers and takes one string.
fn numbers_and_text<'a>(r: &mut Reader<'a>) -> Option<((), Taken<'a, 1>)> {
    let mut text = None;
    r.object(|r, key| match key {
        b"text" => {
            text = Some(r.take(0)?);
            Some(())
        }
        _ => r.skip_value(0),
    })?;
    Some(((), [Some(text?)]))
}

/// A frame of very many skipped values (a hostile upstream's `[0,0,0,…]`, up to the frame
/// limit) would leave its holes' list, several times the frame's size, held by the
/// decoder for the rest of the stream: such a shape is not learned, and the frame is
/// read by `scan` alone.
#[test]
fn a_frame_of_very_many_holes_is_not_learned() {
    let numbers = vec!["0"; 100_000].join(",");
    let frame = format!(r#"{{"x":[{numbers}],"text":"a"}}"#);
    let mut shape = Shape::default();
    for _ in 0..2 {
        let read = shape.read(&frame, numbers_and_text);
        assert_eq!(read, scan(&frame, numbers_and_text));
        assert_eq!(read.and_then(|((), [text])| text).as_deref(), Some("a"));
        assert!(shape.layout.holes.capacity() <= MAX_HOLES, "{} holes kept", shape.layout.holes.capacity());
        assert!(shape.kind.is_none(), "the shape was learned");
    }
    // A frame of few holes is still learned.
    let frame = r#"{"x":[0,0],"text":"a"}"#;
    shape.read(frame, numbers_and_text);
    assert!(shape.kind.is_some());
    assert!(shape.replay(r#"{"x":[1,2],"text":"b"}"#).is_some());
}

/// The same with values that are not holes (`true`): the frame's fixed bytes would be the
/// layout, held by every shape that learned one for the rest of the stream.
#[test]
fn a_frame_of_very_many_fixed_bytes_is_not_learned() {
    let literals = vec!["true"; 100_000].join(",");
    let mut shapes: Shapes<(), 1, 3> = Shapes::default();
    for text in ["a", "b", "c"] {
        let frame = format!(r#"{{"x":[{literals}],"text":"{text}"}}"#);
        let read = shapes.read(&frame, numbers_and_text);
        assert_eq!(read, scan(&frame, numbers_and_text));
        assert_eq!(read.and_then(|((), [text])| text).as_deref(), Some(text));
    }
    for shape in &shapes.0 {
        assert!(shape.kind.is_none(), "a shape was learned");
        assert!(shape.layout.bytes.capacity() <= MAX_LAYOUT_BYTES, "{} bytes kept", shape.layout.bytes.capacity());
    }
    // A frame whose fixed bytes are just within the limit is still learned.
    let fixed = r#"{"x":[],"text":""}"#.len();
    let literals = vec!["true"; (MAX_LAYOUT_BYTES - fixed) / 5].join(",");
    let frame = format!(r#"{{"x":[{literals}],"text":"a"}}"#);
    shapes.read(&frame, numbers_and_text);
    assert!(shapes.0[0].kind.is_some());
}

#[test]
fn same_bytes_is_slice_equality() {
    let bytes: Vec<u8> = (0..40u8).collect();
    for a in 0..=bytes.len() {
        for b in [0, 1, 7, 8, 9, 16, a] {
            let (x, y) = (&bytes[..a], &bytes[..b.min(bytes.len())]);
            assert_eq!(same_bytes(x, y), x == y, "{a} and {b} bytes");
        }
        let mut other = bytes[..a].to_vec();
        if let Some(last) = other.last_mut() {
            *last ^= 1;
            assert!(!same_bytes(&bytes[..a], &other));
        }
    }
}

#[test]
fn string_stop_finds_the_first_quote_backslash_or_control_character() {
    for len in 0..40 {
        for stop in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
            for at in 0..len {
                let mut bytes: Vec<u8> = (0..len).map(|i| [b'a', 0xc3, 0xa9, b' ', 0x7f, 0x20][i % 6]).collect();
                bytes[at] = stop;
                if at + 1 < len {
                    bytes[at + 1] = b'"';
                }
                assert_eq!(string_stop(&bytes), Some(at), "{bytes:?}");
            }
        }
        let plain: Vec<u8> = (0..len).map(|i| [b'a', 0xc3, 0xa9, b' ', 0x7f, 0x20, 0xff][i % 7]).collect();
        assert_eq!(string_stop(&plain), None);
    }
}

/// What [`Reader::string`] makes of a string whose body (between its quotes) is `body`.
fn unescape(body: &str) -> Option<String> {
    Reader::new(&format!("\"{body}\"")).string().map(Cow::into_owned)
}

/// Strings with escapes decode as serde_json decodes them, surrogate pairs included; a lone
/// surrogate or a bad escape is left to the general path, which reports it.
#[test]
fn escaped_strings_decode_as_serde_json_decodes_them() {
    for json in [
        r#""{\"city\":\"Paris\"}""#,
        r#""a\\b\/c\bd\fe\nf\rg\th""#,
        r#""\u00e9\u0000\u20AC\uffff é ü""#,
        r#""\"""#,
        r#""x\\""#,
        r#""\ud83d\ude00""#,
        r#""a\uD83D\uDE00b\u00e9\ud800\udc00\udbff\udfff🙂""#,
    ] {
        let expected: String = serde_json::from_str(json).unwrap();
        assert_eq!(Reader::new(json).string().as_deref(), Some(expected.as_str()), "{json}");
    }
    for body in [
        r"\ud800",
        r"\uDFFF",
        r"\udc00\ud800",
        r"\ud800\ud800",
        r"\ud800\u0041",
        r"\ud800\ue000",
        r"\ud800x",
        r"\ud800\n",
        r"\ud800\u12",
        r"\u12",
        r"\u+123",
        r"\x",
        "a\\",
    ] {
        assert_eq!(unescape(body), None, "{body}");
        assert!(serde_json::from_str::<String>(&format!("\"{body}\"")).is_err(), "{body}");
    }
}

/// Escapes at every place of a string (across the eight-byte words the search reads), among
/// plain and non-ASCII characters, decode as serde_json decodes them.
#[test]
fn escapes_anywhere_decode_as_serde_json_decodes_them() {
    let plain = "ab é€🙂 cdefghijklmnopq";
    for escape in [r#"\""#, r"\\", r"\n", r"\/", r"\u00e9", r"\u20ac"] {
        for at in plain.char_indices().map(|(i, _)| i).chain([plain.len()]) {
            for second in [0, at, plain.len()] {
                let mut body = plain.to_owned();
                body.insert_str(at, escape);
                let second = if second >= at { second + escape.len() } else { second };
                body.insert_str(second, r"\t");
                let json = format!("\"{body}\"");
                let expected: String = serde_json::from_str(&json).unwrap();
                assert_eq!(unescape(&body).as_deref(), Some(expected.as_str()), "{body}");
            }
        }
    }
}

/// Runs between escapes of every length up to past the one where they stop being copied a byte
/// at a time and start being copied whole, ASCII and not, decode as serde_json decodes them.
#[test]
fn runs_of_every_length_between_escapes_decode_as_serde_json_decodes_them() {
    for unit in ["a", "é", "🙂"] {
        for len in 0..40 {
            let run = unit.repeat(len);
            let body = format!(r#"{run}\"{run}\n{run}"#);
            let expected: String = serde_json::from_str(&format!("\"{body}\"")).unwrap();
            assert_eq!(unescape(&body).as_deref(), Some(expected.as_str()), "{body}");
        }
    }
}

/// A string with an escape ends at its closing quote, whatever follows it in the frame (quotes,
/// backslashes, another escaped string), and the reader is left just past it; a control
/// character after the escape, wherever it is in the run that follows, gives the string up.
#[test]
fn an_escaped_string_ends_at_its_quote_within_the_word_read() {
    let after = r#","k":"\"v\\w"}"#;
    for len in 0..20 {
        let run = "a".repeat(len);
        let json = format!(r#""\n{run}""#);
        let expected: String = serde_json::from_str(&json).unwrap();
        let data = format!("{json}{after}");
        let mut reader = Reader::new(&data);
        assert_eq!(reader.string().as_deref(), Some(expected.as_str()), "{data}");
        assert_eq!(&data[reader.at..], after, "{data}");
        for control in ['\u{1}', '\u{1f}', '\n'] {
            let bad = format!(r#""\n{run}{control}b"{after}"#);
            assert_eq!(Reader::new(&bad).string(), None, "{bad:?}");
        }
    }
}

/// A skipped string is checked as a taken one is: its escapes read, a bad one or a lone
/// surrogate (left to the general path) giving the frame up; serde_json reads each good one.
#[test]
fn skipped_strings_check_their_escapes() {
    for escapes in [r#"\"\\\/\b\f\n\r\t"#, r"\u00e9\u20AC\uffff", r"é\u0041🙂", r"\ud83d\ude00"] {
        let frame = format!(r#"{{"x":"{escapes}","text":"a"}}"#);
        serde_json::from_str::<serde_json::Value>(&frame).unwrap();
        assert_eq!(scan(&frame, numbers_and_text).and_then(|((), [text])| text).as_deref(), Some("a"), "{frame}");
    }
    for escapes in [r"\u12", r"\u+123", r"\x", r"\ud800", r"\uDFFF", r"\ud83d\u0041", "\\\u{1}"] {
        let frame = format!(r#"{{"x":"{escapes}","text":"a"}}"#);
        assert_eq!(scan(&frame, numbers_and_text), None, "{frame}");
    }
}

/// A decoded string keeps room for itself, not for the frame after it: strings taken from a
/// frame live on in events, and a long frame with many escaped strings would otherwise hold the
/// rest of the frame once for each.
#[test]
fn a_decoded_string_holds_no_room_for_the_rest_of_the_frame() {
    let data = format!("\"a\\nb\",{}", " ".repeat(1 << 20));
    let Some(Cow::Owned(text)) = Reader::new(&data).string() else { panic!("an escaped string is decoded") };
    assert_eq!(text, "a\nb");
    assert!(text.capacity() < 1024, "capacity {}", text.capacity());
    let long = format!("\"{}\\n{}\",{}", "x".repeat(5000), "y".repeat(5000), " ".repeat(1 << 20));
    let Some(Cow::Owned(text)) = Reader::new(&long).string() else { panic!("an escaped string is decoded") };
    assert_eq!(text, format!("{}\n{}", "x".repeat(5000), "y".repeat(5000)));
    assert!(text.capacity() < 2 * text.len() + 1024, "capacity {}", text.capacity());
}
