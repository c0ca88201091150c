// Package compare runs the fencing comparison, a campaign (package
// campaign) of two cells: one lock, one schedule of pauses of the lock
// holder, run with a resource that ignores fencing tokens (claim: lost
// updates or invalid) and with one that rejects stale tokens (claim:
// valid, stale writes rejected), each seed of --seeds; and a side-by-side
// page of each seed's two runs (store/compare/<timestamp>/index.html).
package compare

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/campaign"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/harness"
	"github.com/lockstorm/lockstorm/internal/page"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/lease"
	"github.com/lockstorm/lockstorm/reports"
	"github.com/lockstorm/lockstorm/sweep"
)

// Spec is a fencing comparison: one lock, one schedule of
// holder-targeted client pauses, run once with a resource that ignores
// fencing tokens and once with one that rejects stale tokens. The
// command line fills it from the settings table (--lock, --ttl,
// --clients, --time-limit, --store mean there what they mean for run).
type Spec struct {
	// Lock must issue fencing tokens (config.IssuesFences), else the
	// fenced run has nothing to reject; WithDefaults refuses others.
	// Default "fenced".
	Lock string
	// TTL is the lease TTL. Default lease.DefaultTTL, as run's.
	TTL time.Duration
	// Pause is each client pause's length. Default 2 × TTL.
	Pause time.Duration
	// TimeLimit is each run's length. Default config.DefaultTimeLimit,
	// as run's.
	TimeLimit time.Duration
	// Clients is the number of client slots. Default
	// config.DefaultClients (4), as run and sweep.
	Clients int
	// Store is the store's root. Default "store".
	Store string
	// Process, when set, runs the lock under test as process clients (a
	// --client-cmd or --zoo-entry, sweep.ResolveProcess); Lock is then its
	// label.
	Process *sweep.Process
}

// checkLock fills and checks the lock: it must issue fencing tokens.
func (s *Spec) checkLock() error {
	if p := s.Process; p != nil {
		s.Lock = p.Label
		if !p.Fences && !p.FencesUnknown {
			return bad("%s %s issues no fencing tokens: the fenced run would have nothing to reject", p.From, p.Label)
		}
		return nil
	}
	if s.Lock == "" {
		s.Lock = "fenced"
	}
	if !slices.Contains(config.LockNames(), s.Lock) {
		return bad("--lock must be one of %s, got %q", strings.Join(config.LockNames(), ", "), s.Lock)
	}
	if !config.IssuesFences(s.Lock) {
		return bad("--lock must be a lock that issues fencing tokens (fenced, fenced-redlock), got %q: without tokens the fenced run has nothing to reject", s.Lock)
	}
	return nil
}

// recovery is the fault-free time after the last pause.
const recovery = 2 * time.Second

// WithDefaults fills zero fields and checks the rest; errors wrap ErrSpec
// and name the flag.
func (s Spec) WithDefaults() (Spec, error) {
	if err := s.checkLock(); err != nil {
		return s, err
	}
	if s.TTL == 0 {
		s.TTL = lease.DefaultTTL
	}
	if err := config.CheckTTL(s.TTL); err != nil {
		return s, bad("%v", err)
	}
	if s.Pause == 0 {
		s.Pause = 2 * s.TTL
	}
	if err := config.AxisOf("pause").Check(s.Pause); err != nil {
		return s, bad("%v", err)
	}
	if s.TimeLimit == 0 {
		s.TimeLimit = config.DefaultTimeLimit
	}
	if need := sweep.FirstPauseAt + s.Pause + recovery; s.TimeLimit < need {
		return s, bad("--time-limit %v leaves no room for a %v pause (needs at least %v)", s.TimeLimit, s.Pause, need)
	}
	if s.Clients == 0 {
		s.Clients = config.DefaultClients
	}
	if s.Clients < 2 || s.Clients > 64 {
		return s, bad("--clients must be between 2 and 64, got %d", s.Clients)
	}
	if strings.TrimSpace(s.Store) == "" {
		s.Store = "store"
	}
	return s, nil
}

// PauseTimes are the pause starts: from sweep.FirstPauseAt, each after the
// previous pause, a TTL and half a second (so a new holder has taken
// over), while the recovery time still fits.
func (s Spec) PauseTimes() []time.Duration {
	var out []time.Duration
	for at := sweep.FirstPauseAt; at+s.Pause+recovery <= s.TimeLimit; at += s.Pause + s.TTL + 500*time.Millisecond {
		out = append(out, at)
	}
	return out
}

// Config is one side's harness configuration. Holders honour their own
// validity deadline (correct client code): what goes wrong is a write
// sent before the pause and delivered after the lease expired. Its Cell
// ("lock fenced, ttl 1s, fencing on, pause 2s") titles the side's report.
func (s Spec) Config(fencing bool) config.Config {
	// Named after the lock: comparisons of different locks keep their
	// own runs and their own `latest` in the store.
	name := "compare-" + s.Lock + "-unfenced"
	if fencing {
		name = "compare-" + s.Lock + "-fenced"
	}
	fenced := "off"
	if fencing {
		fenced = "on"
	}
	cell := fmt.Sprintf("lock %s, ttl %s, fencing %s, pause %s", s.Lock, page.Dur(s.TTL), fenced, page.Dur(s.Pause))
	cfg := config.Config{Name: name, Cell: cell, Lock: s.Lock, Workload: "counter", Clients: s.Clients, TTL: s.TTL,
		Fencing: fencing, TimeLimit: s.TimeLimit, Store: s.Store,
		Plan: sweep.HolderFaults(s.PauseTimes(), s.Pause, sweep.NemesisClientPause, false, 1)}
	if p := s.Process; p != nil {
		// A real pause of the client process (SIGSTOP), as in sweep.
		cfg.ClientCmd, cfg.ClientDir, cfg.Nodes, cfg.NodeTimeout, cfg.PauseModel = p.Cmd, p.Dir, max(p.Nodes, 1), p.NodeTimeout, config.PauseProcess
	}
	return cfg
}

// Side is one run of a comparison.
type Side struct {
	Fencing bool
	// Dir is the run folder relative to the store.
	Dir     string
	Metrics sweep.Metrics
	Result  *analysis.Result `json:"-"`
}

// Comparison is the two runs of one seed, side by side.
type Comparison struct {
	Spec Spec
	// Seed is both runs' seed.
	Seed int64
	// Dir is store/compare/<timestamp>[-seed<S>], where its page is.
	Dir              string
	Unfenced, Fenced Side
}

// Claims of the two cells: the comparison shows what fencing changes when
// both hold.
const (
	unfencedClaim = "without fencing: lost updates or invalid"
	fencedClaim   = "with fencing: valid, stale writes rejected"
)

// Cells are the comparison's two cells, "unfenced" and "fenced", each
// with its claim.
func (s Spec) Cells() []campaign.Cell {
	return []campaign.Cell{
		{Name: "unfenced", Config: s.Config(false), Claims: []campaign.Claim{{Name: unfencedClaim, Judge: judgeUnfenced}}},
		{Name: "fenced", Config: s.Config(true), Claims: []campaign.Claim{{Name: fencedClaim, Judge: judgeFenced}}},
	}
}

// judgeUnfenced: the run without fencing lost updates or is invalid.
func judgeUnfenced(res *analysis.Result) (checker.Validity, string) {
	return unfencedShows(sweep.MetricsOf(res))
}

// judgeFenced: the run with fencing is valid and rejected stale writes.
func judgeFenced(res *analysis.Result) (checker.Validity, string) {
	return fencedShows(sweep.MetricsOf(res))
}

// unfencedShows judges the unfenced claim on a run's metrics.
func unfencedShows(m sweep.Metrics) (checker.Validity, string) {
	seen := fmt.Sprintf("%s, %s, %s accepted", m.Verdict, lostUpdates(m.LostUpdates), page.Count(m.StaleAccepted, "stale write", "stale writes"))
	switch {
	case m.LostUpdates > 0 || m.Verdict == checker.Invalid:
		return checker.Valid, seen
	case m.Verdict == checker.Unknown:
		return checker.Unknown, seen
	}
	return checker.Invalid, seen
}

// fencedShows judges the fenced claim on a run's metrics.
func fencedShows(m sweep.Metrics) (checker.Validity, string) {
	seen := fmt.Sprintf("%s, %s, %s rejected, %d accepted", m.Verdict, lostUpdates(m.LostUpdates),
		page.Count(m.StaleRejected, "stale write", "stale writes"), m.StaleAccepted)
	switch {
	case m.Verdict == checker.Valid && m.StaleRejected > 0:
		return checker.Valid, seen
	case m.Verdict == checker.Unknown:
		return checker.Unknown, seen
	}
	return checker.Invalid, seen
}

// Result is a finished comparison campaign: the campaign's report and the
// comparisons of the seeds whose two runs both ran here.
type Result struct {
	Campaign    *campaign.Report
	Comparisons []*Comparison
}

// Options tune Run.
type Options struct {
	// Runner runs each side and writes its report. Default lockstorm.Run.
	Runner harness.RunFunc
	// Progress receives the campaign's progress lines.
	Progress io.Writer
}

// dirLayout names comparison folders (not a run folder name, so the
// store listing does not mistake it for a run).
const dirLayout = "20060102-150405"

// Run runs the comparison's cells as a campaign (f: seeds, shard,
// parallel, only, store) and writes, for each seed whose two runs ran
// here, store/compare/<timestamp>[-seed<S>]/index.html and compare.json.
func Run(ctx context.Context, spec Spec, f config.Campaign, opt Options) (*Result, error) {
	spec, err := spec.WithDefaults()
	if err != nil {
		return nil, err
	}
	rep, err := campaign.Run(ctx, campaign.Spec{Kind: "compare", Name: spec.Lock, Cells: spec.Cells(), Flags: f},
		campaign.Options{Runner: opt.Runner, Progress: opt.Progress, KeepResults: true})
	if err != nil || rep.Interrupted {
		return &Result{Campaign: rep}, err
	}
	out := &Result{Campaign: rep}
	sides := map[int64]map[string]campaign.Outcome{}
	for _, o := range rep.Outcomes {
		if o.Result != nil && o.Error == "" {
			if sides[o.Seed] == nil {
				sides[o.Seed] = map[string]campaign.Outcome{}
			}
			sides[o.Seed][o.Cell] = o
		}
	}
	for seed := int64(1); seed <= int64(max(f.Seeds, 1)); seed++ {
		u, uok := sides[seed]["unfenced"]
		fe, fok := sides[seed]["fenced"]
		if !uok || !fok {
			continue
		}
		cmp := &Comparison{Spec: spec, Seed: seed, Unfenced: side(spec, u), Fenced: side(spec, fe)}
		name := rep.Started.Format(dirLayout)
		if f.Seeds > 1 {
			name += fmt.Sprintf("-seed%d", seed)
		}
		if err := cmp.write(name, u.Holds() == checker.Valid && fe.Holds() == checker.Valid); err != nil {
			return out, err
		}
		out.Comparisons = append(out.Comparisons, cmp)
	}
	return out, nil
}

// side is the Side of outcome o.
func side(spec Spec, o campaign.Outcome) Side {
	s := Side{Fencing: o.Result.Config.Fencing, Metrics: sweep.MetricsOf(o.Result), Result: o.Result, Dir: o.Dir}
	if rel, err := filepath.Rel(spec.Store, o.Dir); err == nil {
		s.Dir = filepath.ToSlash(rel)
	}
	return s
}

// Shows reports whether the comparison shows what it should: both claims
// hold.
func (c *Comparison) Shows() bool {
	u, _ := unfencedShows(c.Unfenced.Metrics)
	f, _ := fencedShows(c.Fenced.Metrics)
	return u == checker.Valid && f == checker.Valid
}

// Findings are one line per side saying whether it shows its part.
func (c *Comparison) Findings() []string {
	line := func(title string, judge func(sweep.Metrics) (checker.Validity, string), s Side, claim string) string {
		holds, seen := judge(s.Metrics)
		mark := "as expected"
		if holds != checker.Valid {
			mark = "NOT as expected"
		}
		return fmt.Sprintf("%s %s (%s: %s)", title, seen, mark, strings.TrimPrefix(strings.TrimPrefix(claim, "without fencing: "), "with fencing: "))
	}
	return []string{line("without fencing:", unfencedShows, c.Unfenced, unfencedClaim), line("with fencing:   ", fencedShows, c.Fenced, fencedClaim)}
}

// write writes the comparison's page and compare.json into
// store/compare/name.
func (c *Comparison) write(name string, shows bool) error {
	dir, err := store.NewDir(filepath.Join(c.Spec.Store, store.CompareFolder), name)
	if err != nil {
		return err
	}
	c.Dir = dir
	page, err := comparePage(c)
	if err != nil {
		return err
	}
	if err := store.WriteJSON(filepath.Join(dir, reports.CompareVerdictFile), reports.CompareVerdict{
		Shows: shows, Unfenced: c.Unfenced.Metrics.Verdict, Fenced: c.Fenced.Metrics.Verdict}); err != nil {
		return err
	}
	return store.WriteFile(filepath.Join(dir, store.IndexFile), page)
}

// bad is a one-line error of a bad setting, naming the flag; it wraps
// sweep.ErrSpec, as a sweep's bad setting does (exit status 2).
func bad(format string, a ...any) error {
	return fmt.Errorf("%w: %s", sweep.ErrSpec, fmt.Sprintf(format, a...))
}
