// Package compare runs the fencing comparison: one lock, one seed, one
// schedule of pauses of the lock holder, run once with a resource that
// ignores fencing tokens and once with one that rejects stale tokens, and
// a side-by-side page of both (store/compare/<timestamp>/index.html).
package compare

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm"
	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/checker"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/harness"
	"github.com/lockstorm/lockstorm/internal/page"
	"github.com/lockstorm/lockstorm/internal/store"
	"github.com/lockstorm/lockstorm/reports"
	"github.com/lockstorm/lockstorm/sweep"
)

// Spec is a fencing comparison: one lock, one seed, one schedule of
// holder-targeted client pauses, run once with a resource that ignores
// fencing tokens and once with one that rejects stale tokens.
type Spec struct {
	// Lock must issue fencing tokens (config.IssuesFences), else the
	// fenced run has nothing to reject; WithDefaults refuses others.
	// Default "fenced".
	Lock string
	// TTL is the lease TTL. Default 500ms.
	TTL time.Duration
	// Pause is each client pause's length. Default 2 × TTL.
	Pause time.Duration
	// TimeLimit is each run's length. Default
	// config.DefaultScheduleTimeLimit (8s), as a sweep's runs.
	TimeLimit time.Duration
	// Seed is both runs' seed. Default 1.
	Seed int64
	// Clients is the number of client slots. Default
	// config.DefaultClients (4), as run and sweep.
	Clients int
	// Store is the store's root. Default "store".
	Store string
}

// recovery is the fault-free time after the last pause.
const recovery = 2 * time.Second

// WithDefaults fills zero fields and checks the rest; errors wrap ErrSpec
// and name the flag.
func (s Spec) WithDefaults() (Spec, error) {
	if s.Lock == "" {
		s.Lock = "fenced"
	}
	if !slices.Contains(config.LockNames(), s.Lock) {
		return s, bad("--lock must be one of %s, got %q", strings.Join(config.LockNames(), ", "), s.Lock)
	}
	if !config.IssuesFences(s.Lock) {
		return s, bad("--lock must be a lock that issues fencing tokens (fenced, fenced-redlock), got %q: without tokens the fenced run has nothing to reject", s.Lock)
	}
	if s.TTL == 0 {
		s.TTL = 500 * time.Millisecond
	}
	if s.TTL < 10*time.Millisecond {
		return s, bad("--ttl must be at least 10ms, got %v", s.TTL)
	}
	if s.Pause == 0 {
		s.Pause = 2 * s.TTL
	}
	if s.Pause < 0 {
		return s, bad("--pause must be a positive duration, got %v", s.Pause)
	}
	if s.TimeLimit == 0 {
		s.TimeLimit = config.DefaultScheduleTimeLimit
	}
	if need := sweep.FirstPauseAt + s.Pause + recovery; s.TimeLimit < need {
		return s, bad("--time-limit %v leaves no room for a %v pause (needs at least %v)", s.TimeLimit, s.Pause, need)
	}
	if s.Seed == 0 {
		s.Seed = 1
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
// sent before the pause and delivered after the lease expired.
func (s Spec) Config(fencing bool) config.Config {
	// Named after the lock: comparisons of different locks keep their
	// own runs and their own `latest` in the store.
	name := "compare-" + s.Lock + "-unfenced"
	if fencing {
		name = "compare-" + s.Lock + "-fenced"
	}
	return config.Config{Name: name, Lock: s.Lock, Workload: "counter", Clients: s.Clients, TTL: s.TTL,
		Fencing: fencing, TimeLimit: s.TimeLimit, Seed: s.Seed, Store: s.Store,
		Plan: sweep.HolderPauses(s.PauseTimes(), s.Pause)}
}

// Side is one run of a comparison.
type Side struct {
	Fencing bool
	// Dir is the run folder relative to the store.
	Dir     string
	Metrics sweep.Metrics
	Result  *analysis.Result `json:"-"`
}

// Comparison is a finished comparison.
type Comparison struct {
	Spec Spec
	// Dir is store/compare/<timestamp>.
	Dir              string
	Unfenced, Fenced Side
	Interrupted      bool
	// Started is when the comparison started; Elapsed how long both runs
	// and the page took.
	Started              time.Time
	Elapsed              time.Duration
	unfencedOK, fencedOK bool
}

// Shows reports whether the comparison shows what it should: without
// fencing lost updates or an invalid verdict; with fencing a valid
// verdict and stale writes rejected.
func (c *Comparison) Shows() bool { return c.unfencedOK && c.fencedOK }

// Findings are one line per side saying whether it shows its part.
func (c *Comparison) Findings() []string {
	mark := func(ok bool) string {
		if ok {
			return "as expected"
		}
		return "NOT as expected"
	}
	u, f := c.Unfenced.Metrics, c.Fenced.Metrics
	return []string{
		fmt.Sprintf("without fencing: %s, %s, %s accepted (%s: lost updates or invalid)",
			u.Verdict, lostUpdates(u.LostUpdates), page.Count(u.StaleAccepted, "stale write", "stale writes"), mark(c.unfencedOK)),
		fmt.Sprintf("with fencing:    %s, %s, %s rejected, %d accepted (%s: valid, stale writes rejected)",
			f.Verdict, lostUpdates(f.LostUpdates), page.Count(f.StaleRejected, "stale write", "stale writes"), f.StaleAccepted, mark(c.fencedOK)),
	}
}

// Options tune Run.
type Options struct {
	// Runner runs each side and writes its report. Default lockstorm.Run;
	// the page shows the holders.png and fencing.png it leaves in each
	// run folder.
	Runner harness.RunFunc
	// Progress, when set, receives each side's run progress.
	Progress func(fencing bool, p config.Progress)
}

// dirLayout names comparison folders (not a run folder name, so the
// store listing does not mistake it for a run).
const dirLayout = "20060102-150405"

// Run runs both sides one after the other and writes
// store/compare/<timestamp>/index.html. When ctx ends it stops after the
// current run healed; the page is then not written.
func Run(ctx context.Context, spec Spec, opt Options) (*Comparison, error) {
	start := time.Now()
	spec, err := spec.WithDefaults()
	if err != nil {
		return nil, err
	}
	if opt.Runner == nil {
		opt.Runner = lockstorm.Run
	}
	cmp := &Comparison{Spec: spec, Started: start}
	for _, fencing := range []bool{false, true} {
		cfg := spec.Config(fencing)
		if opt.Progress != nil {
			cfg.OnProgress = func(p config.Progress) { opt.Progress(fencing, p) }
		}
		res, err := opt.Runner(ctx, cfg)
		err, reportErr := reports.SplitError(err)
		if (res != nil && res.Interrupted) || (err != nil && ctx.Err() != nil) {
			cmp.Interrupted, cmp.Elapsed = true, time.Since(start)
			return cmp, nil
		}
		if err != nil {
			cmp.Elapsed = time.Since(start)
			return cmp, fmt.Errorf("%w: fencing %v: %w", sweep.ErrRun, fencing, err)
		}
		side := Side{Fencing: fencing, Metrics: sweep.MetricsOf(res), Result: res, Dir: res.Dir}
		if rel, err := filepath.Rel(spec.Store, res.Dir); err == nil {
			side.Dir = filepath.ToSlash(rel)
		}
		if reportErr != nil {
			return cmp, fmt.Errorf("sweep: report of %s: %w", res.Dir, reportErr)
		}
		if fencing {
			cmp.Fenced = side
		} else {
			cmp.Unfenced = side
		}
	}
	u, f := cmp.Unfenced.Metrics, cmp.Fenced.Metrics
	cmp.unfencedOK = u.LostUpdates > 0 || u.Verdict == checker.Invalid
	cmp.fencedOK = f.Verdict == checker.Valid && f.StaleRejected > 0
	cmp.Elapsed = time.Since(start)

	dir, err := store.NewDir(filepath.Join(spec.Store, store.CompareFolder), time.Now().Format(dirLayout))
	if err != nil {
		return cmp, err
	}
	cmp.Dir = dir
	page, err := comparePage(cmp)
	if err != nil {
		return cmp, err
	}
	if err := store.WriteJSON(filepath.Join(dir, reports.CompareVerdictFile), reports.CompareVerdict{
		Shows: cmp.Shows(), Unfenced: u.Verdict, Fenced: f.Verdict}); err != nil {
		return cmp, err
	}
	return cmp, store.WriteFile(filepath.Join(dir, store.IndexFile), page)
}

// bad is a one-line error of a bad setting, naming the flag; it wraps
// sweep.ErrSpec, as a sweep's bad setting does (exit status 2).
func bad(format string, a ...any) error {
	return fmt.Errorf("%w: %s", sweep.ErrSpec, fmt.Sprintf(format, a...))
}
