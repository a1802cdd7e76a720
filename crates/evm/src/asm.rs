//! A small EVM assembler: enough to write dyno's measurement loops by hand,
//! with forward labels patched once their position is known.
//!
//! Every benchmark program in dyno is generated here, so the exact bytecode
//! behind a figure is reproducible from its id (`dyno` records the
//! program's keccak in the result parameters).

pub use revm::bytecode::opcode as op;

/// The opcode revm names `name` (`"DIV"`, `"LOG2"`): its byte, and its
/// stack inputs and outputs, from revm's own opcode table.
pub fn opcode_named(name: &str) -> Option<op::OpCode> {
    (0..=u8::MAX)
        .filter_map(op::OpCode::new)
        .find(|o| o.as_str() == name)
}

/// A program under construction.
#[derive(Debug, Default, Clone)]
pub struct Asm {
    code: Vec<u8>,
    /// `(position of a PUSH2 immediate, label)` waiting for the label.
    fixups: Vec<(usize, Label)>,
    labels: Vec<Option<usize>>,
}

/// A jump target, defined with [`Asm::mark`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Label(usize);

impl Asm {
    /// An empty program.
    pub fn new() -> Self {
        Self::default()
    }

    /// Append raw opcodes.
    pub fn ops(&mut self, ops: &[u8]) -> &mut Self {
        self.code.extend_from_slice(ops);
        self
    }

    /// Push `value` (big-endian bytes, leading zeros dropped) with the
    /// shortest PUSH; zero is `PUSH0`.
    pub fn push_bytes(&mut self, value: &[u8]) -> &mut Self {
        let start = value.iter().position(|&b| b != 0).unwrap_or(value.len());
        let v = &value[start..];
        assert!(v.len() <= 32, "a push holds at most 32 bytes");
        if v.is_empty() {
            self.code.push(op::PUSH0);
        } else {
            self.code.push(op::PUSH1 + v.len() as u8 - 1);
            self.code.extend_from_slice(v);
        }
        self
    }

    /// Push an integer with the shortest PUSH.
    pub fn push(&mut self, value: u64) -> &mut Self {
        self.push_bytes(&value.to_be_bytes())
    }

    /// A label to be placed later with [`Asm::mark`].
    pub fn label(&mut self) -> Label {
        self.labels.push(None);
        Label(self.labels.len() - 1)
    }

    /// Place `label` here, as a `JUMPDEST`.
    pub fn mark(&mut self, label: Label) -> &mut Self {
        assert!(self.labels[label.0].is_none(), "label placed twice");
        self.labels[label.0] = Some(self.code.len());
        self.code.push(op::JUMPDEST);
        self
    }

    /// Push the position of `label` (a PUSH2, patched in [`Asm::finish`]).
    pub fn push_label(&mut self, label: Label) -> &mut Self {
        self.code.push(op::PUSH2);
        self.fixups.push((self.code.len(), label));
        self.code.extend_from_slice(&[0, 0]);
        self
    }

    /// `JUMP` to `label`.
    pub fn jump(&mut self, label: Label) -> &mut Self {
        self.push_label(label).ops(&[op::JUMP])
    }

    /// `JUMPI` to `label` (consumes the condition on top of the stack).
    pub fn jumpi(&mut self, label: Label) -> &mut Self {
        self.push_label(label).ops(&[op::JUMPI])
    }

    /// The current length: the position of the next opcode.
    pub fn len(&self) -> usize {
        self.code.len()
    }

    /// True if nothing has been written.
    pub fn is_empty(&self) -> bool {
        self.code.is_empty()
    }

    /// The finished bytecode, labels patched.
    pub fn finish(&self) -> Vec<u8> {
        let mut code = self.code.clone();
        for &(at, label) in &self.fixups {
            let pos = self.labels[label.0].expect("every label used is placed");
            let pos = u16::try_from(pos).expect("programs stay under 64 KiB");
            code[at..at + 2].copy_from_slice(&pos.to_be_bytes());
        }
        code
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pushes_are_shortest_and_labels_are_patched() {
        let mut a = Asm::new();
        let end = a.label();
        a.push(0)
            .push(1)
            .push(0x1234)
            .jumpi(end)
            .ops(&[op::STOP])
            .mark(end);
        assert_eq!(
            a.finish(),
            vec![
                op::PUSH0,
                op::PUSH1,
                1,
                op::PUSH2,
                0x12,
                0x34,
                op::PUSH2,
                0,
                11,
                op::JUMPI,
                op::STOP,
                op::JUMPDEST
            ]
        );
        let mut b = Asm::new();
        b.push_bytes(&[0xff; 32]);
        assert_eq!(b.finish()[0], op::PUSH32);
        assert_eq!(b.len(), 33);
    }
}
