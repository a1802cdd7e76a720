//! Whether a view is drawn in colour: only on a terminal, never with
//! `NO_COLOR` set (no-color.org) or `TERM=dumb`, unless the user said so.

/// What the user asked for (`--color`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// Colour on a terminal, as the environment allows.
    Auto,
    Always,
    Never,
}

/// Colour on stdout or stderr (`terminal`: is it one?), as the process's
/// environment allows.
pub fn enabled(choice: Choice, terminal: bool) -> bool {
    decide(
        choice,
        terminal,
        std::env::var_os("NO_COLOR"),
        std::env::var("TERM").ok(),
    )
}

/// The decision from its inputs (testable without touching the
/// environment). An empty `NO_COLOR` does not count, as no-color.org says.
pub fn decide(
    choice: Choice,
    terminal: bool,
    no_color: Option<std::ffi::OsString>,
    term: Option<String>,
) -> bool {
    match choice {
        Choice::Always => true,
        Choice::Never => false,
        Choice::Auto => {
            terminal && no_color.is_none_or(|v| v.is_empty()) && term.is_none_or(|t| t != "dumb")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_only_on_a_terminal_without_no_color_or_dumb_term() {
        let auto = |terminal, no_color: Option<&str>, term: Option<&str>| {
            decide(
                Choice::Auto,
                terminal,
                no_color.map(Into::into),
                term.map(Into::into),
            )
        };
        assert!(auto(true, None, Some("xterm")));
        assert!(!auto(false, None, Some("xterm")), "not a terminal");
        assert!(!auto(true, Some("1"), Some("xterm")), "NO_COLOR set");
        assert!(
            auto(true, Some(""), Some("xterm")),
            "empty NO_COLOR is unset"
        );
        assert!(!auto(true, None, Some("dumb")), "TERM=dumb");
        assert!(decide(Choice::Always, false, Some("1".into()), None));
        assert!(!decide(Choice::Never, true, None, None));
    }
}
