module {{name}}

go 1.25.0

require dyno/adapters/go-protocol v0.0.0

// dyno's Go protocol library, in the dyno checkout this adapter was written
// from (`dyno adapter new`): point it at another checkout if you move.
replace dyno/adapters/go-protocol => {{protocol}}
