package nemesis

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// Step is one fault of a plan: it starts At (time since the run started)
// and is stopped Duration after its start has completed. A crash's start
// itself takes the fault's RestartDelay, so it is stopped at At +
// RestartDelay + Duration.
type Step struct {
	At       time.Duration `json:"at_ns"`
	Fault    Fault         `json:"fault"`
	Duration time.Duration `json:"duration_ns"`
}

// end is when the step's stop is due.
func (s Step) end() time.Duration { return s.At + s.busy() + s.Duration }

// FailoverBusy is the time a schedule allows for a failover's start:
// the detection delay plus sentinel's promotion (measured 1 to 2.2 s) with
// room to spare. A failover that could not finish before the final heal
// is not scheduled.
const FailoverBusy = 4 * time.Second

// busy is how long the step's start itself takes (an estimate for
// failover).
func (s Step) busy() time.Duration {
	switch s.Fault.Kind {
	case KindCrash:
		return s.Fault.RestartDelay
	case KindFailover:
		return FailoverBusy
	}
	return 0
}

// Plan is a whole run's faults, fixed before the run starts: warm-up until
// the first step, the steps, a final heal of everything at HealAt, then a
// recovery phase until End in which clients must make progress again.
// Times are since the run started (the history's clock).
type Plan struct {
	Steps  []Step        `json:"steps"`
	HealAt time.Duration `json:"heal_at_ns"`
	End    time.Duration `json:"end_ns"`
}

// Options configures Schedule.
type Options struct {
	// Kinds are the enabled fault kinds, drawn with equal probability.
	Kinds []string
	// Topology is what faults are drawn over.
	Topology Topology
	// WarmUp is the time before the first fault (may be 0).
	WarmUp time.Duration
	// Faults is the length of the fault phase; it must be positive. Every
	// fault is stopped by its end, and the final heal happens then.
	Faults time.Duration
	// Recovery is the time after the final heal (may be 0).
	Recovery time.Duration
	// MinInterval and MaxInterval bound the quiet time drawn between one
	// fault's stop and the next fault's start (with Overlap: between two
	// starts). Both zero means 1s and 4s.
	MinInterval, MaxInterval time.Duration
	// Overlap lets a fault start while others are active; a kind is still
	// never active twice at once. Default: one fault at a time.
	Overlap bool
}

// Schedule draws a plan from r: every random choice comes from r, so the
// same source state and options give the same plan. Faults are clipped to
// end by the end of the fault phase; a crash whose restart would come
// after it is not scheduled.
func Schedule(r *rand.Rand, set Set, o Options) (Plan, error) {
	if o.Faults <= 0 {
		return Plan{}, errors.New("nemesis: schedule needs a positive fault phase")
	}
	if len(o.Kinds) == 0 {
		return Plan{}, errors.New("nemesis: schedule needs at least one fault kind")
	}
	if len(o.Topology.Nodes) == 0 || len(o.Topology.Clients) == 0 {
		return Plan{}, errors.New("nemesis: schedule needs nodes and clients")
	}
	nems := make([]Nemesis, len(o.Kinds))
	for i, k := range o.Kinds {
		n, err := set.Get(k)
		if err != nil {
			return Plan{}, err
		}
		nems[i] = n
	}
	lo, hi := o.MinInterval, o.MaxInterval
	if lo == 0 && hi == 0 {
		lo, hi = time.Second, 4*time.Second
	}
	if lo < 0 || hi < lo {
		return Plan{}, fmt.Errorf("nemesis: bad interval [%v, %v]", lo, hi)
	}
	healAt := o.WarmUp + o.Faults
	p := Plan{HealAt: healAt, End: healAt + o.Recovery}
	activeUntil := map[string]time.Duration{} // kind -> end of its latest step
	for t := o.WarmUp; t < healAt; {
		var free []int
		for i, k := range o.Kinds {
			if activeUntil[k] <= t {
				free = append(free, i)
			}
		}
		if len(free) == 0 { // only with Overlap: every kind is active
			t += uniform(r, lo, hi).Round(time.Millisecond)
			continue
		}
		i := free[r.IntN(len(free))]
		f := nems[i].Draw(r, o.Topology).clone()
		f.Kind = nems[i].Kind()
		s := Step{At: t, Fault: f, Duration: f.Duration}
		if s.At+s.busy() >= healAt {
			break
		}
		if s.end() > healAt {
			s.Duration = healAt - s.At - s.busy()
			s.Fault.Duration = s.Duration
		}
		p.Steps = append(p.Steps, s)
		activeUntil[f.Kind] = s.end()
		gap := uniform(r, lo, hi).Round(time.Millisecond)
		if o.Overlap {
			t += gap
		} else {
			t = s.end() + gap
		}
	}
	return p, nil
}

// Scripted builds a plan from explicit steps (a catalogue row's exact
// sequence): steps are ordered by At, the final heal comes when the last
// one stops, and the run ends recovery later.
func Scripted(recovery time.Duration, steps ...Step) Plan {
	p := Plan{Steps: make([]Step, len(steps))}
	for i, s := range steps {
		s.Fault = s.Fault.clone()
		p.Steps[i] = s
		p.HealAt = max(p.HealAt, s.end())
	}
	slices.SortStableFunc(p.Steps, func(a, b Step) int { return cmp.Compare(a.At, b.At) })
	p.End = p.HealAt + recovery
	return p
}

// Validate checks that every step's kind is in set and no time is negative.
func (p Plan) Validate(set Set) error {
	var errs []error
	for i, s := range p.Steps {
		if _, err := set.Get(s.Fault.Kind); err != nil {
			errs = append(errs, fmt.Errorf("step %d: %w", i, err))
		}
		if s.At < 0 || s.Duration < 0 || s.Fault.RestartDelay < 0 {
			errs = append(errs, fmt.Errorf("%w: step %d has a negative time", ErrBadFault, i))
		}
	}
	if p.HealAt < 0 || p.End < p.HealAt {
		errs = append(errs, fmt.Errorf("%w: plan heals at %v and ends at %v", ErrBadFault, p.HealAt, p.End))
	}
	return errors.Join(errs...)
}

// NewRand returns the random source a seed stands for, so that every
// caller turns a --seed into the same plan.
func NewRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// Uses reports whether the plan (nil: no plan) has a step of the kind.
func (p *Plan) Uses(kind string) bool {
	if p == nil {
		return false
	}
	for _, s := range p.Steps {
		if s.Fault.Kind == kind {
			return true
		}
	}
	return false
}
