package repro

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/harness"
	"github.com/lockstorm/lockstorm/nemesis"
)

// Options configure a shrink.
type Options struct {
	// Tries is how many runs measure one candidate (default 5), Keep how
	// many of them must show the target for the candidate to be kept
	// (default 3).
	Tries, Keep int
	// Budget bounds the whole search (default 10 minutes): when it runs
	// out, the best candidate found so far is the result.
	Budget time.Duration
	// Runner runs one candidate's try. Required (lockstorm.Run).
	Runner harness.RunFunc
	// Out receives a line per measured candidate.
	Out io.Writer
}

func (o Options) withDefaults() (Options, error) {
	if o.Tries == 0 {
		o.Tries = 5
	}
	if o.Keep == 0 {
		o.Keep = 3
	}
	if o.Budget == 0 {
		o.Budget = 10 * time.Minute
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	switch {
	case o.Tries < 1:
		return o, fmt.Errorf("--tries must be at least 1, got %d", o.Tries)
	case o.Keep < 1 || o.Keep > o.Tries:
		return o, fmt.Errorf("--keep must be between 1 and --tries (%d), got %d", o.Tries, o.Keep)
	case o.Budget < 0:
		return o, fmt.Errorf("--budget must be positive, got %v", o.Budget)
	case o.Runner == nil:
		return o, errors.New("repro: no runner")
	}
	return o, nil
}

// Candidate is one configuration the search measured.
type Candidate struct {
	Plan    nemesis.Plan `json:"plan"`
	Clients int          `json:"clients"`
	// Shows and Tries are the measured rate: Shows of Tries runs showed
	// the target (a measure may stop early once it is decided).
	Shows int `json:"shows"`
	Tries int `json:"tries"`
	// Seeds are the seeds of the tries, in order; Dirs their run folders.
	Seeds []int64  `json:"seeds"`
	Dirs  []string `json:"dirs"`
	// Failing is the folder of the first try that showed the target.
	Failing string `json:"failing,omitempty"`
	// Note says what this candidate changed.
	Note string `json:"note"`
}

// Faults is the candidate's number of fault steps.
func (c Candidate) Faults() int { return len(c.Plan.Steps) }

// Length is how long a run of the candidate lasts.
func (c Candidate) Length() time.Duration { return c.Plan.End }

// Rate is "k/N".
func (c Candidate) Rate() string { return fmt.Sprintf("%d/%d", c.Shows, c.Tries) }

func (c Candidate) String() string {
	return fmt.Sprintf("%d faults, %d clients, %v", c.Faults(), c.Clients, c.Length().Round(100*time.Millisecond))
}

// smaller reports whether c is a smaller reproduction than d: fewer
// faults, then fewer clients, then shorter.
func (c Candidate) smaller(d Candidate) bool {
	switch {
	case c.Faults() != d.Faults():
		return c.Faults() < d.Faults()
	case c.Clients != d.Clients:
		return c.Clients < d.Clients
	}
	return c.Length() < d.Length() || faultTime(c.Plan) < faultTime(d.Plan)
}

func faultTime(p nemesis.Plan) time.Duration {
	var d time.Duration
	for _, s := range p.Steps {
		d += s.Duration
	}
	return d
}

// Result is a shrink's outcome.
type Result struct {
	Run    string    `json:"run"`
	Target Target    `json:"target"`
	Before Candidate `json:"before"`
	// Best is the smallest candidate kept (Before when none was smaller).
	Best Candidate `json:"best"`
	// Measured counts the candidates measured, Seconds the search's time.
	Measured int     `json:"measured"`
	Seconds  float64 `json:"seconds"`
	// Smaller: Best is smaller than Before.
	Smaller bool `json:"smaller"`
	// Reproduces: the original configuration showed the target in at
	// least Keep of Tries runs (else nothing was searched).
	Reproduces bool `json:"reproduces"`
	// Interrupted: ctx ended (or the budget ran out) before the search did.
	Interrupted bool `json:"interrupted,omitempty"`
	// Base is the original run's configuration (for the report).
	Base config.Config `json:"-"`
	Opt  Options       `json:"-"`
}

// ErrNotInvalid is returned for a run that shows no anomaly to keep.
var ErrNotInvalid = errors.New("repro: the run is not invalid")

// Shrink searches for a smaller configuration than the invalid run in
// dir that still shows its first fatal anomaly's kind from the same
// checker in Keep of Tries runs. The candidates' runs go to
// dir/repro/runs. When ctx ends or the budget runs out it returns the
// best candidate found so far (Interrupted), its rate measured in full
// over Tries runs even past the budget (not past ctx).
func Shrink(ctx context.Context, dir string, o Options) (*Result, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", config.ErrConfig, err)
	}
	run, err := analysis.LoadChecked(dir)
	if err != nil {
		return nil, err
	}
	target, err := TargetOf(run.Verdict)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w: %v", config.ErrConfig, dir, ErrNotInvalid, err)
	}
	if run.Plan == nil || len(run.Plan.Steps) == 0 {
		return nil, fmt.Errorf("%w: %s ran no faults: nothing to shrink", config.ErrConfig, dir)
	}
	base := run.Config
	base.Store = filepath.Join(dir, "repro", "runs")
	base.PlanFile = ""
	s := &search{o: o, base: base, target: target, start: time.Now()}
	outer := ctx
	ctx, cancel := context.WithTimeout(ctx, o.Budget)
	defer cancel()
	res := &Result{Run: dir, Target: target, Base: run.Config, Opt: o}
	res.Before = Candidate{Plan: clonePlan(*run.Plan), Clients: base.Clients, Note: "the run as it was"}
	before, ok := s.measure(ctx, res.Before, true)
	res.Before, res.Best = before, before
	res.Measured = s.measured
	if !ok {
		res.Interrupted = ctx.Err() != nil
		res.Seconds = time.Since(s.start).Seconds()
		return res, nil
	}
	res.Reproduces = before.Shows >= o.Keep
	if res.Reproduces {
		res.Best = s.run(ctx, before)
		res.Interrupted = ctx.Err() != nil
		if res.Best.Tries < o.Tries {
			// Decided early: measure the result in full for its rate,
			// past the budget (the rate is what the report stands on),
			// unless the search itself was interrupted.
			res.Best.Note = "the result, measured in full"
			if full, ok := s.measure(outer, res.Best, true); ok {
				res.Best = full
			}
		}
	}
	res.Smaller = res.Best.smaller(res.Before)
	res.Measured = s.measured
	res.Seconds = time.Since(s.start).Seconds()
	return res, nil
}

// search is one shrink in progress.
type search struct {
	o        Options
	base     config.Config
	target   Target
	start    time.Time
	measured int
}

// run shrinks from best in passes: fewer faults (delta debugging over the
// plan's steps), the steps moved together and the run cut short, fewer
// clients, shorter faults; each pass keeps what still reproduces, until a
// round changes nothing or ctx ends.
func (s *search) run(ctx context.Context, best Candidate) Candidate {
	for ctx.Err() == nil {
		prev := best
		best = s.fewerFaults(ctx, best)
		best = s.tryAll(ctx, best, compressed(best))
		best = s.fewerClients(ctx, best)
		best = s.tryAll(ctx, best, shorterFaults(best))
		if !best.smaller(prev) {
			break
		}
	}
	return best
}

// fewerFaults is delta debugging (ddmin) over the plan's steps: remove
// chunks of steps while the rest still reproduces, halving the chunks
// until single steps.
func (s *search) fewerFaults(ctx context.Context, best Candidate) Candidate {
	n := 2
	for len(best.Plan.Steps) >= 2 && ctx.Err() == nil {
		steps := best.Plan.Steps
		n = min(n, len(steps))
		chunk := (len(steps) + n - 1) / n
		reduced := false
		for i := 0; i < len(steps) && ctx.Err() == nil; i += chunk {
			rest := slices.Concat(steps[:i], steps[min(i+chunk, len(steps)):])
			c := withSteps(best, rest, fmt.Sprintf("without steps %d-%d of %d", i+1, min(i+chunk, len(steps)), len(steps)))
			if got, ok := s.keep(ctx, c); ok {
				best, reduced = got, true
				n = max(n-1, 2)
				break
			}
		}
		if !reduced {
			if n >= len(steps) {
				break
			}
			n = min(2*n, len(steps))
		}
	}
	return best
}

// fewerClients tries the fewest clients the plan allows (2, or the
// highest client a step names), then one fewer at a time.
func (s *search) fewerClients(ctx context.Context, best Candidate) Candidate {
	limit := max(2, maxClientNamed(best.Plan))
	try := func(n int) bool {
		c := best
		c.Clients, c.Note = n, fmt.Sprintf("%d clients", n)
		got, ok := s.keep(ctx, c)
		if ok {
			best = got
		}
		return ok
	}
	if best.Clients <= limit || try(limit) {
		return best
	}
	for best.Clients-1 > limit && ctx.Err() == nil && try(best.Clients-1) {
	}
	return best
}

// tryAll keeps the first of cs that reproduces.
func (s *search) tryAll(ctx context.Context, best Candidate, cs ...Candidate) Candidate {
	for _, c := range cs {
		if ctx.Err() != nil {
			break
		}
		if !c.smaller(best) {
			continue
		}
		if got, ok := s.keep(ctx, c); ok {
			best = got
		}
	}
	return best
}

// keep measures c and reports whether it reproduces.
func (s *search) keep(ctx context.Context, c Candidate) (Candidate, bool) {
	got, ok := s.measure(ctx, c, false)
	return got, ok && got.Shows >= s.o.Keep
}

// measure runs c Tries times (seeds base, base+1, ...) and counts the
// runs that show the target; unless full, it stops once the outcome is
// decided. ok is false when ctx ended before it was decided.
func (s *search) measure(ctx context.Context, c Candidate, full bool) (Candidate, bool) {
	c.Shows, c.Tries, c.Seeds, c.Dirs, c.Failing = 0, 0, nil, nil, ""
	for i := 0; i < s.o.Tries; i++ {
		if !full && (c.Shows >= s.o.Keep || c.Shows+s.o.Tries-i < s.o.Keep) {
			break
		}
		cfg := s.base
		p := clonePlan(c.Plan)
		cfg.Plan, cfg.Clients, cfg.TimeLimit = &p, c.Clients, p.End
		cfg.Seed = s.base.Seed + int64(i)
		cfg.Name = s.base.Name + "-shrink"
		res, err := s.o.Runner(ctx, cfg)
		if ctx.Err() != nil {
			return c, false
		}
		c.Tries++
		c.Seeds = append(c.Seeds, cfg.Seed)
		shows := false
		if err == nil && res != nil {
			c.Dirs = append(c.Dirs, res.Dir)
			_, shows = s.target.Shows(res.Verdict)
			if shows && c.Failing == "" {
				c.Failing = res.Dir
			}
		}
		if shows {
			c.Shows++
		}
	}
	s.measured++
	fmt.Fprintf(s.o.Out, "shrink %5.0fs  [%d] %-40s %s: %s of %d tries show %s\n", time.Since(s.start).Seconds(), s.measured, c.String(), c.Note, strconv.Itoa(c.Shows), c.Tries, s.target)
	return c, true
}

// withSteps is c with only steps, its plan rebuilt around them.
func withSteps(c Candidate, steps []nemesis.Step, note string) Candidate {
	recovery := c.Plan.End - c.Plan.HealAt
	c.Plan = nemesis.Scripted(recovery, steps...)
	c.Note = note
	return c
}

// compressed moves the steps together (each starts one TTL-scale gap
// after the previous one ends, the first at a second) and shortens the
// recovery to its minimum.
func compressed(c Candidate) Candidate {
	if len(c.Plan.Steps) == 0 {
		return c
	}
	steps := make([]nemesis.Step, len(c.Plan.Steps))
	at := min(c.Plan.Steps[0].At, time.Second)
	for i, st := range c.Plan.Steps {
		st.Fault = cloneFault(st.Fault)
		if i > 0 {
			gap := st.At - (c.Plan.Steps[i-1].At + c.Plan.Steps[i-1].Duration)
			at += min(max(gap, 0), time.Second)
		}
		st.At = at
		at += st.Duration
		steps[i] = st
	}
	recovery := min(c.Plan.End-c.Plan.HealAt, 3*time.Second)
	out := c
	out.Plan = nemesis.Scripted(recovery, steps...)
	out.Note = "steps moved together, recovery cut to " + recovery.String()
	return out
}

// shorterFaults halves every step's duration (down to 100 ms).
func shorterFaults(c Candidate) Candidate {
	steps := make([]nemesis.Step, len(c.Plan.Steps))
	for i, st := range c.Plan.Steps {
		st.Fault = cloneFault(st.Fault)
		st.Duration = max(st.Duration/2, 100*time.Millisecond)
		if st.Fault.Duration > 0 {
			st.Fault.Duration = st.Duration
		}
		steps[i] = st
	}
	out := withSteps(c, steps, "faults half as long")
	return out
}

// maxClientNamed is the highest client number a step names (c3 -> 3):
// fewer clients than that would leave the step without its client.
func maxClientNamed(p nemesis.Plan) int {
	hi := 0
	for _, st := range p.Steps {
		names := slices.Clone(st.Fault.Clients)
		for _, l := range st.Fault.Links {
			names = append(names, l.Client)
		}
		for _, n := range names {
			if k, err := strconv.Atoi(strings.TrimPrefix(n, "c")); err == nil && strings.HasPrefix(n, "c") {
				hi = max(hi, k)
			}
		}
	}
	return hi
}

func clonePlan(p nemesis.Plan) nemesis.Plan {
	out := p
	out.Steps = make([]nemesis.Step, len(p.Steps))
	for i, st := range p.Steps {
		st.Fault = cloneFault(st.Fault)
		out.Steps[i] = st
	}
	return out
}

func cloneFault(f nemesis.Fault) nemesis.Fault {
	f.Nodes, f.Clients, f.Links = slices.Clone(f.Nodes), slices.Clone(f.Clients), slices.Clone(f.Links)
	return f
}
