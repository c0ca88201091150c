package config

import "time"

// Defaults the subcommands share, so a flag means the same everywhere.
const (
	DefaultClients   = 4                // client slots of run, compare and sweep
	DefaultTimeLimit = 20 * time.Second // a run's length: random faults need time to land
	// DefaultScheduleTimeLimit is a sweep cell run's length: its pauses
	// and their recovery, short because such runs are repeated.
	DefaultScheduleTimeLimit = 8 * time.Second
	DefaultFaultInterval     = 3 * time.Second // mean time between random faults
)
