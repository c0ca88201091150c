package sweep

import (
	"fmt"
	"time"

	"github.com/lockstorm/lockstorm/config"
)

// key is what a resumed sweep must share with the stored one for its
// cell files to be comparable.
func (s Spec) key() specKey {
	return specKey{TimeLimit: s.TimeLimit, Seed: firstSeed, Clients: s.Clients, HoldMin: s.HoldMin, HoldMax: s.HoldMax,
		HoldTTLs: s.HoldTTLs, PauseTimes: s.PauseTimes(), PauseModel: s.PauseModel(), Topology: s.Topology, Lock: s.Process.String()}
}

// firstSeed is the seed of every cell's first run (sweeps stored before
// they ran as campaigns chose it with --seed, 1 by default).
const firstSeed = 1

// specKey is stored in sweep.json.
type specKey struct {
	TimeLimit time.Duration `json:"time_limit_ns"`
	// Seed is the first run's seed.
	Seed       int64           `json:"seed"`
	Clients    int             `json:"clients"`
	HoldMin    time.Duration   `json:"hold_min_ns"`
	HoldMax    time.Duration   `json:"hold_max_ns"`
	PauseTimes []time.Duration `json:"pause_times_ns"`
	// PauseModel is "" in sweeps stored before cells ran as paused
	// processes: their cells are not comparable.
	PauseModel string `json:"pause_model,omitempty"`
	// Topology is "" in sweeps stored before topologies: standalone.
	Topology string `json:"topology,omitempty"`
	// HoldTTLs are holds in TTLs (Spec.HoldTTLs), zero when absolute.
	HoldTTLs [2]float64 `json:"hold_ttls,omitempty"`
	// Lock is the process client (Process.String), "" for lockstorm's
	// own locks.
	Lock string `json:"lock,omitempty"`
}

// topology is the key's topology, standalone when not stored.
func (k specKey) topology() string {
	if k.Topology == "" {
		return config.TopologyStandalone
	}
	return k.Topology
}

func (k specKey) diff(o specKey) string {
	switch {
	case k.TimeLimit != o.TimeLimit:
		return fmt.Sprintf("--time-limit %v, stored %v", k.TimeLimit, o.TimeLimit)
	case k.Seed != o.Seed:
		return fmt.Sprintf("first seed %d, stored %d", k.Seed, o.Seed)
	case k.Clients != o.Clients:
		return fmt.Sprintf("--clients %d, stored %d", k.Clients, o.Clients)
	case k.Lock != o.Lock:
		return fmt.Sprintf("lock %q, stored %q", k.Lock, o.Lock)
	case k.HoldTTLs != o.HoldTTLs:
		return fmt.Sprintf("holds of %v TTLs, stored %v", k.HoldTTLs, o.HoldTTLs)
	case k.HoldMin != o.HoldMin || k.HoldMax != o.HoldMax:
		return fmt.Sprintf("--hold-min/--hold-max %v-%v, stored %v-%v", k.HoldMin, k.HoldMax, o.HoldMin, o.HoldMax)
	case fmt.Sprint(k.PauseTimes) != fmt.Sprint(o.PauseTimes):
		return fmt.Sprintf("pause times %v, stored %v (the longest --pause or --ttl changed)", k.PauseTimes, o.PauseTimes)
	case k.topology() != o.topology():
		return fmt.Sprintf("--topology %s, stored %s", k.topology(), o.topology())
	case k.PauseModel != o.PauseModel:
		return fmt.Sprintf("pause model %q, stored %q (cells stored before clients ran as paused processes must be measured again)", k.PauseModel, o.PauseModel)
	}
	return ""
}
