//! The fork a chain runs under. dyno's chains run Osaka from genesis; a
//! client that has no Osaka (ethereumjs 0.10's `osaka` is the withdrawn
//! EOF fork, not Fusaka) takes the same chain under Prague: the same
//! generator, the same transactions, revm executing them under Prague's
//! rules and the genesis turning on the forks up to Prague only.
//!
//! What differs between the two for dyno's block classes: nothing a
//! block holds (their transactions stay under Osaka's 2^24 gas cap and
//! use neither MODEXP, P256VERIFY nor CLZ), so their headers and hashes
//! agree; the genesis file (no `osakaTime`) does not. For the
//! op-isolation blocks the difference is real: Osaka's precompiles and
//! opcodes do not exist under Prague.

use revm::primitives::hardfork::SpecId;

/// A fork dyno can make a chain under.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Fork {
    /// Pectra (May 2025).
    Prague,
    /// Fusaka (December 2025): dyno's default.
    #[default]
    Osaka,
}

impl Fork {
    /// Every fork, oldest first.
    pub const ALL: [Fork; 2] = [Fork::Prague, Fork::Osaka];

    /// Its name as genesis files and results write it: `prague`, `osaka`.
    pub fn name(self) -> &'static str {
        match self {
            Fork::Prague => "prague",
            Fork::Osaka => "osaka",
        }
    }

    /// The fork `name` means (`prague`, `osaka`, any case).
    pub fn parse(name: &str) -> Option<Fork> {
        Self::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(name))
    }

    /// revm's rules for it.
    pub fn spec_id(self) -> SpecId {
        match self {
            Fork::Prague => SpecId::PRAGUE,
            Fork::Osaka => SpecId::OSAKA,
        }
    }

    /// The time-activated forks a genesis turns on at 0 for it, oldest
    /// first (geth's genesis JSON keys).
    pub fn genesis_times(self) -> &'static [&'static str] {
        const ALL: [&str; 4] = ["shanghaiTime", "cancunTime", "pragueTime", "osakaTime"];
        match self {
            Fork::Prague => &ALL[..3],
            Fork::Osaka => &ALL,
        }
    }

    /// The newest fork a genesis JSON turns on from its first block, if
    /// it is one of these (the newest `<fork>Time` that is 0).
    pub fn of_genesis(genesis: &serde_json::Value) -> Option<Fork> {
        let config = genesis.get("config")?;
        Self::ALL.into_iter().rev().find(|f| {
            let key = f.genesis_times().last().expect("every fork has a time");
            config.get(*key).and_then(serde_json::Value::as_u64) == Some(0)
        })
    }
}

impl std::fmt::Display for Fork {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_and_genesis_files_say_their_fork() {
        for fork in Fork::ALL {
            assert_eq!(Fork::parse(fork.name()), Some(fork));
        }
        assert_eq!(Fork::parse("Prague"), Some(Fork::Prague));
        assert_eq!(Fork::parse("cancun"), None);
        let prague = serde_json::json!({"config": {"cancunTime": 0, "pragueTime": 0}});
        assert_eq!(Fork::of_genesis(&prague), Some(Fork::Prague));
        let osaka = serde_json::json!({"config": {"pragueTime": 0, "osakaTime": 0}});
        assert_eq!(Fork::of_genesis(&osaka), Some(Fork::Osaka));
        // Osaka scheduled later: the chain starts in Prague.
        let later = serde_json::json!({"config": {"pragueTime": 0, "osakaTime": 100}});
        assert_eq!(Fork::of_genesis(&later), Some(Fork::Prague));
        assert_eq!(Fork::of_genesis(&serde_json::json!({})), None);
    }
}
