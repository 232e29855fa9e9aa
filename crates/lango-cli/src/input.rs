//! Messages piped into `lango chat` (no terminal): one message per line, checked to be UTF-8.
//!
//! A line that is not valid UTF-8 stops the chat with a usage error naming the line: sending
//! it mangled, or skipping it and carrying on without it, would both change what the user
//! meant to say. Lines before it were already sent; none after it are.

use std::io::BufRead;

use crate::exit::{CliError, Kind};

/// Reads standard input line by line, counting lines for error messages.
#[derive(Debug, Default)]
pub struct PipedLines {
    read: usize,
}

impl PipedLines {
    /// The next line (with its line ending), None at the end of input.
    pub async fn next(&mut self) -> Result<Option<String>, CliError> {
        let read = tokio::task::spawn_blocking(|| {
            let mut bytes = Vec::new();
            std::io::stdin()
                .lock()
                .read_until(b'\n', &mut bytes)
                .map(|_| bytes)
        })
        .await
        .map_err(|e| CliError::internal(format!("reading standard input failed: {e}")))?;
        let bytes = read
            .map_err(|e| CliError::new(Kind::Usage, format!("cannot read standard input: {e}")))?;
        if bytes.is_empty() {
            return Ok(None);
        }
        self.read += 1;
        decode(bytes, self.read).map(Some)
    }
}

/// Line `number` as text, or the error that names it.
fn decode(bytes: Vec<u8>, number: usize) -> Result<String, CliError> {
    String::from_utf8(bytes).map_err(|_| {
        CliError::new(
            Kind::Usage,
            format!(
                "line {number} of standard input is not valid UTF-8; it and the lines after it were not sent"
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_invalid_line_is_a_usage_error_naming_its_number() {
        let err = decode(b"caf\xe9\n".to_vec(), 3).unwrap_err();
        assert_eq!(err.kind, Kind::Usage);
        assert!(
            err.message
                .contains("line 3 of standard input is not valid UTF-8"),
            "{}",
            err.message
        );
        assert_eq!(decode("café\n".into(), 1).unwrap(), "café\n");
    }
}
