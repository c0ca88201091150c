package analysis

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/coverage"
	"github.com/lockstorm/lockstorm/lease"
)

// requestedKinds are the kinds of the plan's steps, else Config.Nemesis.
func requestedKinds(cfg config.Config) []string {
	if cfg.Plan == nil {
		return cfg.Nemesis
	}
	var out []string
	for _, s := range cfg.Plan.Steps {
		if !slices.Contains(out, s.Fault.Kind) {
			out = append(out, s.Fault.Kind)
		}
	}
	return out
}

// newCoverage starts the coverage of res's history; nil for a run
// without faults.
func newCoverage(res *Result) *coverage.Pass {
	in, ok := coverageInput(res)
	if !ok {
		return nil
	}
	return coverage.NewPass(in)
}

// coverageOf ends the coverage pass (final: the lease events ending the
// leases still held), computed again on its own read when the check
// stopped early.
func coverageOf(res *Result, cov *coverage.Pass, final []lease.Event) (*coverage.Report, error) {
	if cov == nil {
		return nil, nil
	}
	if cov.Records() < int64(res.Records) || res.Records == 0 {
		in, _ := coverageInput(res)
		return coverage.Compute(res.History, in)
	}
	return cov.Report(res.History, final)
}

// coverageInput is what coverage needs besides the history; false for a
// run without faults.
func coverageInput(res *Result) (coverage.Input, bool) {
	cfg := res.Config
	in := coverage.Input{Requested: requestedKinds(cfg), Planned: map[string]int{}, Leases: LeaseOptions(cfg)}
	if res.Plan != nil {
		for _, s := range res.Plan.Steps {
			in.Planned[s.Fault.Kind]++
		}
	}
	if len(in.Planned) == 0 && len(in.Requested) == 0 {
		return in, false
	}
	for i := range cfg.Clients {
		in.Clients = append(in.Clients, config.ClientName(i))
	}
	for i := range cfg.Nodes {
		in.Nodes = append(in.Nodes, fmt.Sprintf("n%d", i+1))
	}
	return in, true
}

// demoteUnexercised makes a valid verdict with a coverage shortfall
// unknown, naming each shortfall.
func demoteUnexercised(res *Result) {
	if res.Coverage == nil {
		return
	}
	gaps := res.Coverage.Judge(cmp.Or(res.Config.MinCoverage, config.DefaultMinCoverage)) // negative: no bar
	if len(gaps) == 0 || res.Verdict.Valid != checker.Valid {
		return
	}
	res.Verdict.Valid = checker.Unknown
	res.Verdict.Error = "faults did not exercise the lock: " + strings.Join(gaps, "; ")
}
