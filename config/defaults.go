package config

import "time"

// Defaults that run, the campaigns and sweep share: each subcommand takes
// its default from here, so that the same flag means the same thing
// everywhere.
const (
	// DefaultClients is the number of concurrent client slots of run,
	// compare and sweep.
	DefaultClients = 4
	// DefaultTimeLimit is the length of a `lockstorm run`: random faults
	// need time for several to land.
	DefaultTimeLimit = 20 * time.Second
	// DefaultScheduleTimeLimit is the length of each run of a sweep
	// cell (a scripted schedule of holder pauses): enough for the pauses
	// and their recovery, short because such runs are repeated. The
	// campaigns of package campaign (compare among them) take
	// DefaultTimeLimit, run's, through the campaign flags' table.
	DefaultScheduleTimeLimit = 8 * time.Second
	// DefaultFaultInterval is the mean time between random faults.
	DefaultFaultInterval = 3 * time.Second
)
