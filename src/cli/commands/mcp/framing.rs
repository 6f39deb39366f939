//! Between standard input and output and the SDK: a line that is not JSON
//! at all gets the JSON-RPC parse error (-32700, `id` null) at once, so a
//! client never waits for its own time-out; every other line goes to the
//! SDK unchanged, and standard output carries whole lines only, the SDK's
//! and these errors, never interleaved.
//!
//! A reply to unparsable input cannot itself be unparsable, so a peer that
//! echoes what it cannot read cannot start an endless exchange.

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;

/// The most bytes of one incoming line kept whole; a longer line is passed
/// on in parts, as the SDK reads it.
const CHUNK: usize = 64 * 1024;

/// The parse error for a line that is not JSON.
pub(super) fn parse_error(line: &[u8]) -> Option<String> {
    let trimmed = line.strip_suffix(b"\n").unwrap_or(line);
    let trimmed = trimmed.strip_suffix(b"\r").unwrap_or(trimmed);
    let trimmed = trimmed.strip_prefix("\u{feff}".as_bytes()).unwrap_or(trimmed);
    if trimmed.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    match serde_json::from_slice::<serde::de::IgnoredAny>(trimmed) {
        Ok(_) => None,
        Err(e) if matches!(e.classify(), serde_json::error::Category::Syntax | serde_json::error::Category::Eof) => {
            let error = serde_json::json!({
                "jsonrpc": "2.0",
                "id": null,
                "error": {"code": -32700, "message": format!("Parse error: {e}")},
            });
            Some(format!("{error}\n"))
        }
        Err(_) => None,
    }
}

/// The SDK's side of the streams: what it reads and where it writes.
pub(super) struct Framed {
    pub input: DuplexStream,
    pub output: DuplexStream,
}

/// Starts the two pumps on the current runtime: `stdin` to the SDK (with
/// parse errors answered), and the SDK's output and those errors to
/// `stdout`, line by line.
pub(super) fn start<R, W>(stdin: R, stdout: W) -> Framed
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (sdk_input, mut to_sdk) = tokio::io::duplex(CHUNK);
    let (sdk_output, from_sdk) = tokio::io::duplex(CHUNK);
    let (errors, mut error_lines) = mpsc::unbounded_channel::<String>();
    tokio::spawn(async move {
        let mut reader = BufReader::new(stdin);
        let mut line = Vec::new();
        // Inside a line longer than CHUNK: its parts go on unchecked.
        let mut long = false;
        loop {
            line.clear();
            match (&mut reader).take(CHUNK as u64).read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let whole = line.ends_with(b"\n");
            if !long && whole {
                if let Some(error) = parse_error(&line) {
                    if errors.send(error).is_err() {
                        break;
                    }
                    continue;
                }
            }
            long = !whole;
            if to_sdk.write_all(&line).await.is_err() {
                break;
            }
        }
        // End of input: the SDK sees it and the session ends.
        let _ = to_sdk.shutdown().await;
    });
    tokio::spawn(async move {
        let mut stdout = stdout;
        let mut from_sdk = BufReader::new(from_sdk);
        let mut line = Vec::new();
        let mut errors_open = true;
        loop {
            tokio::select! {
                read = from_sdk.read_until(b'\n', &mut line) => {
                    match read {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {
                            if stdout.write_all(&line).await.is_err() || stdout.flush().await.is_err() {
                                break;
                            }
                            line.clear();
                        }
                    }
                }
                error = error_lines.recv(), if errors_open => {
                    match error {
                        Some(error) => {
                            if !line.is_empty() {
                                // The SDK is inside a line: it is finished first.
                                match from_sdk.read_until(b'\n', &mut line).await {
                                    Ok(0) | Err(_) => break,
                                    Ok(_) => {}
                                }
                                if stdout.write_all(&line).await.is_err() {
                                    break;
                                }
                                line.clear();
                            }
                            if stdout.write_all(error.as_bytes()).await.is_err() || stdout.flush().await.is_err() {
                                break;
                            }
                        }
                        None => errors_open = false,
                    }
                }
            }
        }
    });
    Framed { input: sdk_input, output: sdk_output }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_text_that_is_not_json_gets_a_parse_error() {
        let e = parse_error(b"not json\n").unwrap();
        let v: serde_json::Value = serde_json::from_str(&e).unwrap();
        assert_eq!(v["error"]["code"], -32700);
        assert_eq!(v["id"], serde_json::Value::Null);
        assert!(e.ends_with('\n') && e.matches('\n').count() == 1);
        assert!(parse_error(b"{\"jsonrpc\": \"2.0\"\n").is_some(), "a cut message");
        assert_eq!(parse_error(b"{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1}\n"), None);
        assert_eq!(parse_error(b"[1, 2]\r\n"), None, "JSON of the wrong shape is the SDK's to answer");
        assert_eq!(parse_error(b"   \n"), None);
    }
}
