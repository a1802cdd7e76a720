//! What a comma-separated flag names (`--client geth,ethrex`, `--set`,
//! `--only`): each choice once, none empty. A stray comma or a name given
//! twice is a mistake to say, not a client replayed twice or an empty
//! filter that keeps everything.

use crate::error::Error;

/// Refuse `values` (of `flag`) holding an empty choice or one given twice.
pub fn distinct(flag: &str, values: &[String]) -> crate::Result<()> {
    let given = values.join(",");
    if values.iter().any(|v| v.trim().is_empty()) {
        return Err(Error::Refused(format!(
            "{flag} {given}: an empty choice (two commas together, or one at an end); name each \
             once, comma-separated"
        )));
    }
    for (k, v) in values.iter().enumerate() {
        if values[..k].contains(v) {
            return Err(Error::Refused(format!(
                "{flag} {given}: {v} is named twice; name each once"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(s: &str) -> Vec<String> {
        s.split(',').map(String::from).collect()
    }

    #[test]
    fn an_empty_or_repeated_choice_is_refused_by_flag() {
        assert!(distinct("--client", &names("geth,ethrex")).is_ok());
        assert!(distinct("--client", &[]).is_ok());
        let e = distinct("--client", &names("geth,,ethrex"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--client geth,,ethrex") && e.contains("empty"),
            "{e}"
        );
        let e = distinct("--set", &names("transfers,mixed,transfers"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--set") && e.contains("transfers is named twice"),
            "{e}"
        );
    }
}
