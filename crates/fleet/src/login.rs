//! The broker's own authentication: a username and password, read from a
//! file only its owner may read (never from the command line or the URL,
//! where `ps` and the results would show them), sent in MQTT's CONNECT.
//! It keeps strangers off a broker that asks for it (mosquitto's
//! `password_file`); the fleet's key ([`crate::seal`]) is what binds each
//! message to the run, login or not.

use std::path::Path;

/// A username and password for the broker.
#[derive(Clone, PartialEq, Eq)]
pub struct Login {
    pub username: String,
    pub password: String,
}

impl std::fmt::Debug for Login {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Login")
            .field("username", &self.username)
            .field("password", &"***")
            .finish()
    }
}

/// Why a login file was refused.
#[derive(Debug, thiserror::Error)]
#[error("the broker login {path}: {reason}")]
pub struct LoginError {
    pub path: String,
    pub reason: String,
}

impl Login {
    /// Read `USERNAME:PASSWORD` (one line; the password is everything after
    /// the first `:`) from `path`, which must be a regular file that only
    /// its owner may read or change (0600).
    pub fn read(path: &Path) -> Result<Login, LoginError> {
        let bad = |reason: String| LoginError {
            path: path.display().to_string(),
            reason,
        };
        let text = private_text(path, 4096).map_err(bad)?;
        let line = text.lines().next().unwrap_or("").trim_end_matches('\r');
        let Some((username, password)) = line.split_once(':') else {
            return Err(bad(
                "it must hold one line USERNAME:PASSWORD (the broker's user and password)".into(),
            ));
        };
        if username.is_empty() {
            return Err(bad("the username before the ':' is empty".into()));
        }
        Ok(Login {
            username: username.into(),
            password: password.into(),
        })
    }
}

/// The text of a file that holds a secret: a regular file no one but its
/// owner may read or change, at most `max` bytes read. The reason it is
/// refused, with the fix.
pub(crate) fn private_text(path: &Path, max: u64) -> Result<String, String> {
    use std::io::Read as _;
    use std::os::unix::fs::PermissionsExt as _;
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(format!(
            "mode {mode:04o} lets others read or change it; run `chmod 600 {}`",
            path.display()
        ));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(max).read_to_end(&mut bytes))
        .map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|_| "not UTF-8 text".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    fn file(text: &str, mode: u32) -> tempfile::NamedTempFile {
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), text).unwrap();
        std::fs::set_permissions(f.path(), std::fs::Permissions::from_mode(mode)).unwrap();
        f
    }

    #[test]
    fn a_login_is_one_line_user_and_password_in_a_private_file() {
        let f = file("dyno:pa:ss word\n", 0o600);
        let l = Login::read(f.path()).unwrap();
        assert_eq!(
            (l.username.as_str(), l.password.as_str()),
            ("dyno", "pa:ss word")
        );
        assert!(
            !format!("{l:?}").contains("pa:ss"),
            "the password is never shown"
        );
        let open = file("dyno:secret\n", 0o644);
        let e = Login::read(open.path()).unwrap_err().to_string();
        assert!(e.contains("mode 0644") && e.contains("chmod 600"), "{e}");
        assert!(!e.contains("secret"));
        for bad in ["no colon here\n", ":nouser\n", ""] {
            let f = file(bad, 0o600);
            assert!(Login::read(f.path()).is_err(), "{bad:?} was taken");
        }
        let e = Login::read(Path::new("/nowhere/login"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("/nowhere/login"), "{e}");
    }
}
