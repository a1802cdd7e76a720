//! The `dyno` binary end to end: one test binary, one module per area,
//! the helpers in one file.

mod ab;
mod adapter_failure;
mod bad_inputs;
mod external_adapter;
mod gate;
mod helpers;
mod instructions;
mod load;
mod reference;
mod replay;
mod rules;
mod run;
mod signals;
