//! JSON text (RFC 8259) read into a [`Value`], in place of serde_json's reader: that one is
//! generic over serde's visitors, and with them came serde's "invalid type" messages and the float
//! formatting they print into every module that reads JSON.
//!
//! It reads as serde_json's `from_str::<Value>` does, to the error: the same texts accepted and
//! refused (a lone surrogate in a `\u` escape too), the same depth limit, a key given twice keeps
//! its last value, numbers read into the same [`Number`] (an integer that fits a `u64` or an `i64`
//! as one, `-0` and every other number as the nearest `f64` serde_json's own arithmetic finds, a
//! number beyond `f64`'s range refused) and errors worded alike, at the same line and column (the
//! differential test below holds the two to each other).

use std::fmt;

use serde_json::{Map, Number, Value};

/// Why a text is not JSON, and where: serde_json's wording and place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    what: &'static str,
    line: usize,
    column: usize,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at line {} column {}", self.what, self.line, self.column)
    }
}

impl std::error::Error for ReadError {}

/// How deep values may nest, as serde_json counts (it refuses the 128th level): nothing that walks
/// a value read from a stream recursively can then be driven into a stack overflow.
const MAX_DEPTH: usize = 128;

/// The one JSON value `text` holds.
pub fn parse(text: &str) -> Result<Value, ReadError> {
    read(text, MAX_DEPTH)
}

/// [`parse`] without the depth limit, for text the crate wrote itself from values read within it
/// (a state holds messages holding parts holding a tool's input, some levels deeper). The reader
/// keeps what is open on the heap, so depth costs no stack.
pub(crate) fn parse_unbounded(text: &str) -> Result<Value, ReadError> {
    read(text, usize::MAX)
}

/// An array or an object being read: its items so far, or its fields and the key whose value
/// comes next.
enum Open {
    Array(Vec<Value>),
    Object(Map<String, Value>, String),
}

const EOF_LIST: &str = "EOF while parsing a list";
const EOF_OBJECT: &str = "EOF while parsing an object";
const EOF_STRING: &str = "EOF while parsing a string";
const EOF_VALUE: &str = "EOF while parsing a value";
const INVALID_NUMBER: &str = "invalid number";
const OUT_OF_RANGE: &str = "number out of range";
const LONE_SURROGATE: &str = "lone leading surrogate in hex escape";
const UNEXPECTED_END_OF_HEX: &str = "unexpected end of hex escape";
const INVALID_ESCAPE: &str = "invalid escape";
const TRAILING_COMMA: &str = "trailing comma";
const KEY_MUST_BE_A_STRING: &str = "key must be a string";

fn read(text: &str, max_depth: usize) -> Result<Value, ReadError> {
    let mut reader = Reader { text, at: 0 };
    let mut open: Vec<Open> = Vec::new();
    loop {
        let mut value = match reader.space() {
            None => return Err(reader.peek_error(EOF_VALUE)),
            Some(b'[' | b'{') if open.len() + 1 >= max_depth => {
                return Err(reader.peek_error("recursion limit exceeded"))
            }
            Some(b'[') => {
                reader.at += 1;
                match reader.space() {
                    None => return Err(reader.peek_error(EOF_LIST)),
                    Some(b']') => {
                        reader.at += 1;
                        Value::Array(Vec::new())
                    }
                    Some(_) => {
                        open.push(Open::Array(Vec::new()));
                        continue;
                    }
                }
            }
            Some(b'{') => {
                reader.at += 1;
                match reader.space() {
                    None => return Err(reader.peek_error(EOF_OBJECT)),
                    Some(b'}') => {
                        reader.at += 1;
                        Value::Object(Map::new())
                    }
                    Some(b'"') => {
                        open.push(Open::Object(Map::new(), reader.key()?));
                        continue;
                    }
                    Some(_) => return Err(reader.peek_error(KEY_MUST_BE_A_STRING)),
                }
            }
            Some(b'"') => {
                reader.at += 1;
                Value::String(reader.string()?)
            }
            Some(b'n') => reader.ident("null", Value::Null)?,
            Some(b't') => reader.ident("true", Value::Bool(true))?,
            Some(b'f') => reader.ident("false", Value::Bool(false))?,
            Some(b'-') => {
                reader.at += 1;
                reader.number(false)?
            }
            Some(b'0'..=b'9') => reader.number(true)?,
            Some(_) => return Err(reader.peek_error("expected value")),
        };
        // A value is whole: it goes into what holds it, and ends each it closes.
        loop {
            let Some(holder) = open.last_mut() else {
                if reader.space().is_some() {
                    return Err(reader.peek_error("trailing characters"));
                }
                return Ok(value);
            };
            let (close, what) = match holder {
                Open::Array(items) => {
                    items.push(value);
                    (b']', ("expected `,` or `]`", EOF_LIST))
                }
                Open::Object(fields, key) => {
                    fields.insert(std::mem::take(key), value);
                    (b'}', ("expected `,` or `}`", EOF_OBJECT))
                }
            };
            match reader.space() {
                None => return Err(reader.peek_error(what.1)),
                Some(b',') => {
                    reader.at += 1;
                    match (reader.space(), holder) {
                        (None, _) => return Err(reader.peek_error(EOF_VALUE)),
                        (Some(b), _) if b == close => return Err(reader.peek_error(TRAILING_COMMA)),
                        (Some(_), Open::Array(_)) => break,
                        (Some(b'"'), Open::Object(_, key)) => {
                            *key = reader.key()?;
                            break;
                        }
                        (Some(_), Open::Object(..)) => return Err(reader.peek_error(KEY_MUST_BE_A_STRING)),
                    }
                }
                Some(b) if b == close => {
                    reader.at += 1;
                    value = match open.pop() {
                        Some(Open::Array(items)) => Value::Array(items),
                        Some(Open::Object(fields, _)) => Value::Object(fields),
                        None => Value::Null,
                    };
                }
                Some(_) => return Err(reader.peek_error(what.0)),
            }
        }
    }
}

struct Reader<'a> {
    text: &'a str,
    at: usize,
}

impl Reader<'_> {
    /// An error at the byte last read, as serde_json places it.
    #[cold]
    fn error(&self, what: &'static str) -> ReadError {
        self.error_at(what, self.at)
    }

    /// An error at the byte looked at (one past the last read).
    #[cold]
    fn peek_error(&self, what: &'static str) -> ReadError {
        self.error_at(what, self.text.len().min(self.at + 1))
    }

    #[cold]
    fn error_at(&self, what: &'static str, at: usize) -> ReadError {
        let before = &self.text.as_bytes()[..at];
        let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |n| n + 1);
        let line = 1 + before[..line_start].iter().filter(|&&b| b == b'\n').count();
        ReadError { what, line, column: at - line_start }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let byte = self.peek();
        self.at += usize::from(byte.is_some());
        byte
    }

    /// Skips white space; the byte after it.
    fn space(&mut self) -> Option<u8> {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.at += 1;
        }
        self.peek()
    }

    /// `"key":`, at its `"`.
    fn key(&mut self) -> Result<String, ReadError> {
        self.at += 1;
        let key = self.string()?;
        match self.space() {
            Some(b':') => {
                self.at += 1;
                Ok(key)
            }
            Some(_) => Err(self.peek_error("expected `:`")),
            None => Err(self.peek_error(EOF_OBJECT)),
        }
    }

    /// `null`, `true` or `false`, at its first letter.
    fn ident(&mut self, word: &str, value: Value) -> Result<Value, ReadError> {
        self.at += 1;
        for &expected in &word.as_bytes()[1..] {
            match self.next() {
                None => return Err(self.error(EOF_VALUE)),
                Some(byte) if byte != expected => return Err(self.error("expected ident")),
                Some(_) => {}
            }
        }
        Ok(value)
    }

    /// A string's content, after its opening `"`.
    fn string(&mut self) -> Result<String, ReadError> {
        let bytes = self.text.as_bytes();
        let mut out = String::new();
        loop {
            let start = self.at;
            self.at += super::escape_at(&bytes[start..]).unwrap_or(bytes.len() - start);
            out.push_str(&self.text[start..self.at]);
            match self.next() {
                None => return Err(self.error(EOF_STRING)),
                Some(b'"') => return Ok(out),
                Some(b'\\') => out.push(self.escape()?),
                Some(_) => return Err(self.error("control character (\\u0000-\\u001F) found while parsing a string")),
            }
        }
    }

    /// An escape's character, after its `\`.
    fn escape(&mut self) -> Result<char, ReadError> {
        Ok(match self.next() {
            None => return Err(self.error(EOF_STRING)),
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                let high = self.hex4()?;
                if !(0xD800..0xE000).contains(&high) {
                    return char::from_u32(high).ok_or_else(|| self.error(INVALID_ESCAPE));
                }
                if high >= 0xDC00 {
                    return Err(self.error(LONE_SURROGATE));
                }
                for expected in [b'\\', b'u'] {
                    match self.next() {
                        None => return Err(self.error(EOF_STRING)),
                        Some(byte) if byte != expected => return Err(self.error(UNEXPECTED_END_OF_HEX)),
                        Some(_) => {}
                    }
                }
                let low = self.hex4()?;
                if !(0xDC00..0xE000).contains(&low) {
                    return Err(self.error(LONE_SURROGATE));
                }
                let code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                return char::from_u32(code).ok_or_else(|| self.error(INVALID_ESCAPE));
            }
            Some(_) => return Err(self.error(INVALID_ESCAPE)),
        })
    }

    /// The four hex digits of a `\u` escape.
    fn hex4(&mut self) -> Result<u32, ReadError> {
        let Some(digits) = self.text.as_bytes().get(self.at..self.at + 4) else {
            self.at = self.text.len();
            return Err(self.error(EOF_STRING));
        };
        self.at += 4;
        let mut code = 0;
        for &digit in digits {
            let Some(value) = char::from(digit).to_digit(16) else { return Err(self.error(INVALID_ESCAPE)) };
            code = code * 16 + value;
        }
        Ok(code)
    }

    fn digit(&self) -> Option<u8> {
        self.peek().filter(u8::is_ascii_digit).map(|b| b - b'0')
    }

    /// A number, after its `-` if negative.
    fn number(&mut self, positive: bool) -> Result<Value, ReadError> {
        let significand = match self.next() {
            None => return Err(self.error(EOF_VALUE)),
            Some(b'0') if self.digit().is_some() => return Err(self.peek_error(INVALID_NUMBER)),
            Some(b'0') => 0,
            Some(first @ b'1'..=b'9') => {
                let mut significand = u64::from(first - b'0');
                while let Some(digit) = self.digit() {
                    match significand.checked_mul(10).and_then(|n| n.checked_add(u64::from(digit))) {
                        Some(n) => significand = n,
                        // Past u64: the digits beyond count only as powers of ten, as serde_json
                        // reads them.
                        None => return self.long_integer(positive, significand).map(float),
                    }
                    self.at += 1;
                }
                significand
            }
            Some(_) => return Err(self.error(INVALID_NUMBER)),
        };
        Ok(match self.peek() {
            Some(b'.') => float(self.fraction(positive, significand, 0)?),
            Some(b'e' | b'E') => float(self.exponent(positive, significand, 0)?),
            _ if positive => Value::Number(significand.into()),
            // `-0` and what is below i64::MIN are floats, as in serde_json.
            _ => match (significand as i64).wrapping_neg() {
                negative if negative < 0 => Value::Number(negative.into()),
                _ => float(-(significand as f64)),
            },
        })
    }

    /// The rest of an integer past u64, its digits dropped and counted.
    #[cold]
    fn long_integer(&mut self, positive: bool, significand: u64) -> Result<f64, ReadError> {
        let mut exponent = 0;
        while self.digit().is_some() {
            self.at += 1;
            exponent += 1;
        }
        match self.peek() {
            Some(b'.') => self.fraction(positive, significand, exponent),
            Some(b'e' | b'E') => self.exponent(positive, significand, exponent),
            _ => self.from_parts(positive, significand, exponent),
        }
    }

    /// At a number's `.`.
    fn fraction(&mut self, positive: bool, mut significand: u64, exponent: i32) -> Result<f64, ReadError> {
        self.at += 1;
        let mut exponent = exponent;
        let mut digits = 0;
        while let Some(digit) = self.digit() {
            match significand.checked_mul(10).and_then(|n| n.checked_add(u64::from(digit))) {
                Some(n) => significand = n,
                None => {
                    // Past u64: the further digits are dropped.
                    while self.digit().is_some() {
                        self.at += 1;
                    }
                    digits = 1;
                    break;
                }
            }
            self.at += 1;
            exponent -= 1;
            digits += 1;
        }
        if digits == 0 {
            let what = if self.peek().is_some() { INVALID_NUMBER } else { EOF_VALUE };
            return Err(self.peek_error(what));
        }
        match self.peek() {
            Some(b'e' | b'E') => self.exponent(positive, significand, exponent),
            _ => self.from_parts(positive, significand, exponent),
        }
    }

    /// At a number's `e` or `E`.
    fn exponent(&mut self, positive: bool, significand: u64, before: i32) -> Result<f64, ReadError> {
        self.at += 1;
        let positive_exponent = self.peek() != Some(b'-');
        if let Some(b'+' | b'-') = self.peek() {
            self.at += 1;
        }
        let mut exponent = match self.next() {
            None => return Err(self.error(EOF_VALUE)),
            Some(digit @ b'0'..=b'9') => i32::from(digit - b'0'),
            Some(_) => return Err(self.error(INVALID_NUMBER)),
        };
        while let Some(digit) = self.digit() {
            self.at += 1;
            match exponent.checked_mul(10).and_then(|n| n.checked_add(i32::from(digit))) {
                Some(n) => exponent = n,
                None => {
                    // Infinite is refused; zero is zero.
                    if significand != 0 && positive_exponent {
                        return Err(self.error(OUT_OF_RANGE));
                    }
                    while self.digit().is_some() {
                        self.at += 1;
                    }
                    return Ok(if positive { 0.0 } else { -0.0 });
                }
            }
        }
        let exponent =
            if positive_exponent { before.saturating_add(exponent) } else { before.saturating_sub(exponent) };
        self.from_parts(positive, significand, exponent)
    }

    /// `significand` × 10^`exponent` with serde_json's arithmetic (without its `float_roundtrip`
    /// feature), so that a number reads as the same `f64` as it did.
    fn from_parts(&self, positive: bool, significand: u64, mut exponent: i32) -> Result<f64, ReadError> {
        let mut f = significand as f64;
        loop {
            match POW10.get(exponent.wrapping_abs() as usize) {
                Some(&pow) => {
                    if exponent >= 0 {
                        f *= pow;
                        if f.is_infinite() {
                            return Err(self.error(OUT_OF_RANGE));
                        }
                    } else {
                        f /= pow;
                    }
                    break;
                }
                None => {
                    if f == 0.0 {
                        break;
                    }
                    if exponent >= 0 {
                        return Err(self.error(OUT_OF_RANGE));
                    }
                    f /= 1e308;
                    exponent += 308;
                }
            }
        }
        Ok(if positive { f } else { -f })
    }
}

fn float(f: f64) -> Value {
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

static POW10: [f64; 309] = [
    1e000, 1e001, 1e002, 1e003, 1e004, 1e005, 1e006, 1e007, 1e008, 1e009, 1e010, 1e011, 1e012, 1e013, 1e014, 1e015,
    1e016, 1e017, 1e018, 1e019, 1e020, 1e021, 1e022, 1e023, 1e024, 1e025, 1e026, 1e027, 1e028, 1e029, 1e030, 1e031,
    1e032, 1e033, 1e034, 1e035, 1e036, 1e037, 1e038, 1e039, 1e040, 1e041, 1e042, 1e043, 1e044, 1e045, 1e046, 1e047,
    1e048, 1e049, 1e050, 1e051, 1e052, 1e053, 1e054, 1e055, 1e056, 1e057, 1e058, 1e059, 1e060, 1e061, 1e062, 1e063,
    1e064, 1e065, 1e066, 1e067, 1e068, 1e069, 1e070, 1e071, 1e072, 1e073, 1e074, 1e075, 1e076, 1e077, 1e078, 1e079,
    1e080, 1e081, 1e082, 1e083, 1e084, 1e085, 1e086, 1e087, 1e088, 1e089, 1e090, 1e091, 1e092, 1e093, 1e094, 1e095,
    1e096, 1e097, 1e098, 1e099, 1e100, 1e101, 1e102, 1e103, 1e104, 1e105, 1e106, 1e107, 1e108, 1e109, 1e110, 1e111,
    1e112, 1e113, 1e114, 1e115, 1e116, 1e117, 1e118, 1e119, 1e120, 1e121, 1e122, 1e123, 1e124, 1e125, 1e126, 1e127,
    1e128, 1e129, 1e130, 1e131, 1e132, 1e133, 1e134, 1e135, 1e136, 1e137, 1e138, 1e139, 1e140, 1e141, 1e142, 1e143,
    1e144, 1e145, 1e146, 1e147, 1e148, 1e149, 1e150, 1e151, 1e152, 1e153, 1e154, 1e155, 1e156, 1e157, 1e158, 1e159,
    1e160, 1e161, 1e162, 1e163, 1e164, 1e165, 1e166, 1e167, 1e168, 1e169, 1e170, 1e171, 1e172, 1e173, 1e174, 1e175,
    1e176, 1e177, 1e178, 1e179, 1e180, 1e181, 1e182, 1e183, 1e184, 1e185, 1e186, 1e187, 1e188, 1e189, 1e190, 1e191,
    1e192, 1e193, 1e194, 1e195, 1e196, 1e197, 1e198, 1e199, 1e200, 1e201, 1e202, 1e203, 1e204, 1e205, 1e206, 1e207,
    1e208, 1e209, 1e210, 1e211, 1e212, 1e213, 1e214, 1e215, 1e216, 1e217, 1e218, 1e219, 1e220, 1e221, 1e222, 1e223,
    1e224, 1e225, 1e226, 1e227, 1e228, 1e229, 1e230, 1e231, 1e232, 1e233, 1e234, 1e235, 1e236, 1e237, 1e238, 1e239,
    1e240, 1e241, 1e242, 1e243, 1e244, 1e245, 1e246, 1e247, 1e248, 1e249, 1e250, 1e251, 1e252, 1e253, 1e254, 1e255,
    1e256, 1e257, 1e258, 1e259, 1e260, 1e261, 1e262, 1e263, 1e264, 1e265, 1e266, 1e267, 1e268, 1e269, 1e270, 1e271,
    1e272, 1e273, 1e274, 1e275, 1e276, 1e277, 1e278, 1e279, 1e280, 1e281, 1e282, 1e283, 1e284, 1e285, 1e286, 1e287,
    1e288, 1e289, 1e290, 1e291, 1e292, 1e293, 1e294, 1e295, 1e296, 1e297, 1e298, 1e299, 1e300, 1e301, 1e302, 1e303,
    1e304, 1e305, 1e306, 1e307, 1e308,
];

#[cfg(test)]
mod tests {
    use super::*;

    /// serde_json's reading of `text`, as this reader's result would print: the value written out
    /// (so that `-0.0` and `0.0`, equal as numbers, are told apart), or the error's text.
    fn serde_reading(text: &str, limit: bool) -> Result<String, String> {
        let mut reader = serde_json::Deserializer::from_str(text);
        if !limit {
            reader.disable_recursion_limit();
        }
        let value = serde::Deserialize::deserialize(&mut reader).and_then(|value: Value| reader.end().map(|()| value));
        value.map(|value| serde_json::to_string(&value).unwrap()).map_err(|e| e.to_string())
    }

    fn reading(text: &str) -> Result<String, String> {
        parse(text).map(|value| serde_json::to_string(&value).unwrap()).map_err(|e| e.to_string())
    }

    fn agrees(text: &str) {
        assert_eq!(reading(text), serde_reading(text, true), "{text:?}");
    }

    #[test]
    fn reads_as_serde_json_reads() {
        let nested = |open: &str, close: &str, n: usize| format!("{}{}", open.repeat(n), close.repeat(n));
        let mut texts: Vec<String> = [
            // Values, white space, what surrounds them.
            "",
            " ",
            "null",
            "true",
            "false",
            " \t\r\n[ 1 ,\n 2 ] \n",
            "nul",
            "nulx",
            "tru",
            "fals",
            "truex",
            "[1] x",
            "{} {}",
            "[",
            "]",
            "{",
            "}",
            "[1",
            "[1,",
            "[1,]",
            "[1 2]",
            "[,1]",
            "[]]",
            "{\"a\"",
            "{\"a\":",
            "{\"a\":1",
            "{\"a\":1,",
            "{\"a\":1,}",
            "{\"a\" 1}",
            "{\"a\":1 \"b\":2}",
            "{1:2}",
            "{,}",
            "{\"a\":1,2}",
            "{\"a\":1}}",
            "\u{feff}1",
            "/* */1",
            "'a'",
            "NaN",
            "Infinity",
            "-Infinity",
            "+1",
            "x",
            "\n\n  ?",
            // Keys: repeated (the last value kept), `__proto__`, empty, escaped.
            r#"{"a":1,"b":2,"a":3}"#,
            r#"{"__proto__":{"x":1},"constructor":null}"#,
            r#"{"":0,"\u0061":1,"a":2}"#,
            // Strings and escapes.
            r#""""#,
            r#""plain é 😀 \u2028""#,
            r#""\"\\\/\b\f\n\r\t""#,
            r#""\u00e9\u0000\uFFFF\uffff""#,
            r#""\ud83d\ude00""#,
            r#""\uD83D\uDE00 tail""#,
            r#""\ud800""#,
            r#""\ud800x""#,
            r#""\ud800\n""#,
            r#""\ud800\u0041""#,
            r#""\ud800\ud800""#,
            r#""\udc00""#,
            r#""\ud800\u12""#,
            r#""\ud800\"#,
            r#""\ud800\"#,
            r#""\u12"#,
            r#""\u12g4""#,
            r#""\x""#,
            r#""\"#,
            r#""abc"#,
            "\"a\u{1}b\"",
            "\"tab\there\"",
            "\"line\nbreak\"",
            "\"\u{7f}\"",
            r#"["a\u0022b", "\\"]"#,
            // Numbers.
            "0",
            "-0",
            "-0.0",
            "0.0",
            "00",
            "01",
            "-",
            "-a",
            "1.",
            "1.e5",
            ".5",
            "1e",
            "1e+",
            "1E-",
            "1e5",
            "1E+5",
            "1.5e-5",
            "-1.5E+300",
            "1e308",
            "1.7976931348623157e308",
            "1.7976931348623159e308",
            "1e309",
            "1e400",
            "-1e400",
            "1e-400",
            "1e-324",
            "5e-324",
            "0e999999999999",
            "1e999999999999",
            "1e-999999999999",
            "-0e-999999999999",
            "0.1",
            "0.2",
            "0.30000000000000004",
            "3.141592653589793238462643383279",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "123456789012345678901234567890",
            "123456789012345678901234567890.5e-10",
            "1234567890123456789012e-400",
            "0.000000000000000000000000000000000000001234567890123456789012345",
            "1.0000000000000000000000001",
            "[1e5,2.5,-7,0]",
            "1x",
            "1.5.5",
            "1e5e5",
            "-01",
            "2.",
            "[-]",
            "[1.]",
            "1e+1x",
        ]
        .map(String::from)
        .to_vec();
        // Nesting at, below and past the depth limit, of arrays and objects.
        for n in [1, 126, 127, 128, 129, 300] {
            texts.push(nested("[", "]", n));
            texts.push(format!("{}1{}", "[".repeat(n), "]".repeat(n)));
            texts.push(nested("{\"a\":", "}", n).replacen("{\"a\":}", "{}", 1));
            texts.push(format!("{}null{}", "{\"k\":".repeat(n), "}".repeat(n)));
        }
        for text in &texts {
            agrees(text);
        }
        // Without the limit, deep nesting reads whole (serde_json recursing, this reader not).
        let deep = format!("{}[1,{{\"a\":\"b\"}}]{}", "[{\"k\":".repeat(300), "}]".repeat(300));
        let read =
            parse_unbounded(&deep).map(|value| serde_json::to_string(&value).unwrap()).map_err(|e| e.to_string());
        assert_eq!(read, serde_reading(&deep, false));
        assert!(parse(&deep).is_err());
    }

    /// Texts mangled byte by byte, and numbers of random digits and exponents: the same value or
    /// the same error.
    #[test]
    fn reads_random_text_as_serde_json_reads() {
        let seeds = [
            r#"{"a":[1,-2.5e+3,0.1,true,false,null,"x\"y\\u00e9\n\ud83d\ude00"],"b":{},"c":[],"d":{"e":[{"f":""}]}}"#,
            "[ 1 , { \"k\" : \"v\" } ,\n [ ] , 123456789012345678901, -0.0e-1 ]",
            r#""text \u0041\ud800\udc00""#,
            "-0",
            "1E5",
        ];
        let mut seed = 0x1234_5678_9abc_def0_u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut verdicts = [0; 2];
        for text in seeds {
            for _ in 0..3000 {
                let pieces = b"{}[]\",:0-.eE+ \n\\tnul1u9d8\x01";
                let mut bytes = text.as_bytes().to_vec();
                for _ in 0..1 + next(3) {
                    let at = next(bytes.len().max(1)).min(bytes.len().saturating_sub(1));
                    let piece = pieces[next(pieces.len())];
                    match next(3) {
                        _ if bytes.is_empty() => bytes.push(piece),
                        0 => bytes[at] = piece,
                        1 => _ = bytes.remove(at),
                        _ => bytes.insert(at, piece),
                    }
                }
                let Ok(mangled) = String::from_utf8(bytes) else { continue };
                agrees(&mangled);
                verdicts[usize::from(parse(&mangled).is_ok())] += 1;
            }
        }
        assert!(verdicts[0] > 2000 && verdicts[1] > 500, "both kinds were tried: {verdicts:?}");
        for _ in 0..20_000 {
            let digits = |next: &mut dyn FnMut(usize) -> usize, n: usize| -> String {
                (0..n).map(|_| char::from(b'0' + next(10) as u8)).collect()
            };
            let mut number = String::new();
            if next(2) == 0 {
                number.push('-');
            }
            let count = 1 + next(25);
            let whole = digits(&mut next, count);
            number.push_str(if next(4) == 0 { "0" } else { whole.trim_start_matches('0') });
            if number.ends_with('-') || number.is_empty() {
                number.push('7');
            }
            if next(2) == 0 {
                number.push('.');
                let count = 1 + next(25);
                number.push_str(&digits(&mut next, count));
            }
            if next(2) == 0 {
                number.push(['e', 'E'][next(2)]);
                number.push_str(["", "+", "-"][next(3)]);
                number.push_str(&(next(700)).to_string());
            }
            agrees(&number);
        }
    }

    #[test]
    fn an_error_names_its_line_and_column() {
        let error = parse("{\n  \"a\": [1,\n  2,]\n}").unwrap_err();
        assert_eq!(error.to_string(), "trailing comma at line 3 column 5");
    }
}
