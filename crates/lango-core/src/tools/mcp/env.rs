//! The environment a server process gets: a minimal set of the user's variables (so it
//! finds its tools, home and locale) plus what its settings name — never Lango's provider
//! keys or anything else of Lango's environment. Also finds the command on the user's
//! login-shell PATH, which a desktop app started from a launcher does not inherit.
//!
//! Owns the allow-list, PATH resolution and `keychain:` references. It must not start
//! processes (`connection` does).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use super::error::McpError;
use crate::secrets::SecretStore;

/// Variables a child gets from Lango's own environment; nothing else passes.
const PASSED: &[&str] = &[
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TERM",
    "TMPDIR",
    "TMP",
    "TEMP",
    "TZ",
    "XDG_RUNTIME_DIR",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    // Windows: without these, many programs cannot start at all.
    "SYSTEMROOT",
    "SystemRoot",
    "WINDIR",
    "COMSPEC",
    "PATHEXT",
    "APPDATA",
    "LOCALAPPDATA",
    "USERPROFILE",
    "PROGRAMDATA",
    "ProgramFiles",
    "HOMEDRIVE",
    "HOMEPATH",
];

/// A value that names a keychain entry instead of holding the secret.
pub const KEYCHAIN_PREFIX: &str = "keychain:";

/// The child's whole environment: the allow-listed variables, `PATH` (the login shell's),
/// then the server's own `env` with `keychain:` references resolved.
pub fn child_env(
    configured: &BTreeMap<String, String>,
    secrets: Option<&SecretStore>,
) -> Result<Vec<(String, String)>, McpError> {
    let mut env: BTreeMap<String, String> = BTreeMap::new();
    for name in PASSED {
        if let Ok(value) = std::env::var(name) {
            env.insert((*name).to_owned(), value);
        }
    }
    if let Some(path) = search_path().to_str() {
        env.insert("PATH".to_owned(), path.to_owned());
    }
    for (key, value) in resolve_secrets(configured, secrets)? {
        env.insert(key, value);
    }
    Ok(env.into_iter().collect())
}

/// `configured` with every `keychain:NAME` value read from the key store.
pub fn resolve_secrets(
    configured: &BTreeMap<String, String>,
    secrets: Option<&SecretStore>,
) -> Result<Vec<(String, String)>, McpError> {
    configured
        .iter()
        .map(|(key, value)| {
            let Some(name) = value.strip_prefix(KEYCHAIN_PREFIX).map(str::trim) else {
                return Ok((key.clone(), value.clone()));
            };
            let Some(store) = secrets else {
                return Err(McpError::MissingSecret {
                    name: name.to_owned(),
                });
            };
            match store.get(name) {
                Ok(Some((secret, _))) => Ok((key.clone(), secret.expose().to_owned())),
                Ok(None) => Err(McpError::MissingSecret {
                    name: name.to_owned(),
                }),
                Err(e) => Err(McpError::Secret {
                    name: name.to_owned(),
                    reason: e.to_string(),
                }),
            }
        })
        .collect()
}

/// The PATH children search: the user's login-shell PATH (resolved once), then Lango's
/// own, then common install folders that exist — without duplicates.
pub fn search_path() -> OsString {
    static PATH: OsStringOnce = OsStringOnce::new();
    PATH.get_or_init(|| {
        let mut dirs: Vec<PathBuf> = Vec::new();
        let mut add = |dir: PathBuf| {
            if !dir.as_os_str().is_empty() && !dirs.contains(&dir) {
                dirs.push(dir);
            }
        };
        if let Some(login) = login_shell_path() {
            std::env::split_paths(&login).for_each(&mut add);
        }
        if let Some(own) = std::env::var_os("PATH") {
            std::env::split_paths(&own).for_each(&mut add);
        }
        for dir in well_known_dirs() {
            if dir.is_dir() {
                add(dir);
            }
        }
        std::env::join_paths(dirs).unwrap_or_default()
    })
    .clone()
}

type OsStringOnce = OnceLock<OsString>;

/// Where package managers put `node`, `npx`, `uvx`, `python3` when the shell's profile is
/// not read.
fn well_known_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = ["/usr/local/bin", "/opt/homebrew/bin", "/usr/bin", "/bin"]
        .iter()
        .map(PathBuf::from)
        .collect();
    if let Some(home) = std::env::var_os("HOME").map(PathBuf::from) {
        for sub in [
            ".local/bin",
            ".cargo/bin",
            ".volta/bin",
            ".bun/bin",
            ".deno/bin",
        ] {
            dirs.push(home.join(sub));
        }
    }
    dirs
}

/// `$SHELL -l -c 'printf %s "$PATH"'`, bounded to 3 s; `None` on Windows or any failure.
fn login_shell_path() -> Option<OsString> {
    if cfg!(windows) {
        return None;
    }
    let shell = std::env::var_os("SHELL").filter(|s| !s.is_empty())?;
    let mut child = std::process::Command::new(&shell)
        .args(["-l", "-c", "printf '%s' \"$PATH\""])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let deadline = std::time::Instant::now() + Duration::from_secs(3);
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => break,
            Ok(Some(_)) | Err(_) => return None,
            Ok(None) if std::time::Instant::now() > deadline => {
                let _ = child.kill();
                let _ = child.wait();
                tracing::warn!(shell = ?shell, "the login shell did not print its PATH within 3 s");
                return None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
    let mut out = String::new();
    std::io::Read::read_to_string(child.stdout.as_mut()?, &mut out).ok()?;
    let path = out.lines().last()?.trim().to_owned();
    (!path.is_empty()).then(|| OsString::from(path))
}

/// The program to run: `command` itself when it names a path, else the first match on
/// [`search_path`]. A missing command is an error with a hint on how to get it.
pub fn resolve_command(command: &str, cwd: Option<&Path>) -> Result<PathBuf, McpError> {
    let as_path = Path::new(command);
    if as_path.components().count() > 1 || as_path.is_absolute() {
        let full = match cwd {
            Some(dir) if as_path.is_relative() => dir.join(as_path),
            _ => as_path.to_path_buf(),
        };
        return if full.is_file() {
            Ok(full)
        } else {
            Err(not_found(command))
        };
    }
    let path = search_path();
    for dir in std::env::split_paths(&path) {
        for candidate in candidates(&dir, command) {
            if is_executable(&candidate) {
                return Ok(candidate);
            }
        }
    }
    Err(not_found(command))
}

fn candidates(dir: &Path, command: &str) -> Vec<PathBuf> {
    let mut out = vec![dir.join(command)];
    if cfg!(windows) {
        let exts = std::env::var("PATHEXT").unwrap_or_else(|_| ".COM;.EXE;.BAT;.CMD".into());
        out.extend(
            exts.split(';')
                .filter(|e| !e.is_empty())
                .map(|e| dir.join(format!("{command}{}", e.to_lowercase()))),
        );
    }
    out
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

fn not_found(command: &str) -> McpError {
    let program = Path::new(command)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(command);
    let hint = match program {
        "npx" | "node" | "npm" => "Install Node.js (it brings node and npx), or give the full path of the program in \"command\".",
        "uvx" | "uv" => "Install uv (it brings uvx), or give the full path of the program in \"command\".",
        "python" | "python3" | "pip" => "Install Python 3, or give the full path of the program in \"command\".",
        "docker" => "Install Docker and make sure it is running, or give the full path of the program in \"command\".",
        _ => "Check the spelling, give the full path of the program in \"command\", or add its folder to your PATH.",
    };
    McpError::CommandNotFound {
        command: command.to_owned(),
        hint: hint.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_gets_the_allow_list_and_its_own_env_but_no_provider_key() {
        // The test process may carry provider keys; none may reach a child.
        let configured = BTreeMap::from([("GREETING".to_owned(), "hi".to_owned())]);
        let env = child_env(&configured, None).expect("env");
        let names: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
        assert!(names.contains(&"PATH"));
        assert!(names.contains(&"GREETING"));
        for (k, _) in &env {
            assert!(
                k == "PATH" || k == "GREETING" || PASSED.contains(&k.as_str()),
                "{k} leaked into the child's environment"
            );
        }
    }

    #[test]
    fn a_keychain_reference_without_a_store_is_a_clear_error() {
        let configured = BTreeMap::from([("TOKEN".to_owned(), "keychain:github".to_owned())]);
        let err = child_env(&configured, None).unwrap_err();
        assert_eq!(
            err,
            McpError::MissingSecret {
                name: "github".into()
            }
        );
        assert!(err.to_string().contains("lango config set-key github"));
    }

    #[test]
    fn a_missing_command_says_so_with_a_hint() {
        let err = resolve_command("npx-that-does-not-exist", None).unwrap_err();
        assert!(err
            .to_string()
            .starts_with("command not found: npx-that-does-not-exist."));
        let err = resolve_command("/nowhere/npx", None).unwrap_err();
        assert!(err.to_string().contains("Install Node.js"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn a_command_on_the_path_is_found() {
        let found = resolve_command("sh", None).expect("sh is on every Unix PATH");
        assert!(found.is_absolute());
    }
}
