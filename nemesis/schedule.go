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

// busy is how long the step's start itself takes (Spec.Busy: a crash's
// restart delay, an estimate for a failover).
func (s Step) busy() time.Duration { return busy(s.Fault) }

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
	// Kinds are the enabled fault kinds. They are drawn in rounds: each
	// round is a seeded permutation of Kinds, so every kind appears once
	// before any appears twice.
	Kinds []string
	// Topology is what faults are drawn over.
	Topology Topology
	// WarmUp is the time before the first fault (may be 0).
	WarmUp time.Duration
	// Faults is the length of the fault phase; it must be positive and
	// hold one fault of every kind (MinFaultPhase). Every fault is
	// stopped by its end, and the final heal happens then.
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
	// TargetHolder is the probability that a drawn fault is aimed at the
	// lock holder, a waiter or the holder's lease (see Targeter); zero or
	// negative: never. The coin comes from the schedule's source.
	TargetHolder float64
}

// ErrTooShort means the fault phase cannot hold one fault of every
// requested kind.
var ErrTooShort = errors.New("nemesis: fault phase too short")

// intervals returns the options' gap bounds with their defaults.
func (o Options) intervals() (lo, hi time.Duration, err error) {
	lo, hi = o.MinInterval, o.MaxInterval
	if lo == 0 && hi == 0 {
		lo, hi = time.Second, 4*time.Second
	}
	if lo < 0 || hi < lo {
		return 0, 0, fmt.Errorf("nemesis: bad interval [%v, %v]", lo, hi)
	}
	return lo, hi, nil
}

// MinFaultPhase returns the shortest fault phase that holds one fault of
// each of kinds, one after the other: the sum of their MinStep plus the
// shortest gap (o.MinInterval) between two of them. o.Kinds is ignored.
func MinFaultPhase(set Set, o Options, kinds ...string) (time.Duration, error) {
	lo, _, err := o.intervals()
	if err != nil {
		return 0, err
	}
	var need time.Duration
	for i, k := range kinds {
		n, err := set.Get(k)
		if err != nil {
			return 0, err
		}
		if i > 0 {
			need += lo
		}
		need += MinStep(n, o.Topology)
	}
	return need, nil
}

// Schedule draws a plan from r: every random choice comes from r, so the
// same source state and options give the same plan. Kinds come in seeded
// rounds (each kind once per round); the first round always fits: its
// faults and gaps are shortened, never below a kind's MinStep and the
// minimum interval, so that every kind gets scheduled, and Schedule
// returns an error wrapping ErrTooShort when even that does not fit.
// Later faults are clipped to end by the end of the fault phase; a crash
// whose restart would come after it is not scheduled.
func Schedule(r *rand.Rand, set Set, o Options) (Plan, error) {
	sc, err := newScheduler(r, set, o)
	if err != nil {
		return Plan{}, err
	}
	healAt := o.WarmUp + o.Faults
	p := Plan{HealAt: healAt, End: healAt + o.Recovery}
	for t := o.WarmUp; t < healAt; {
		if len(sc.round) == 0 {
			if len(p.Steps) > 0 {
				sc.first = false
			}
			for _, i := range r.Perm(len(o.Kinds)) {
				sc.round = append(sc.round, o.Kinds[i])
			}
		}
		pos := slices.IndexFunc(sc.round, func(k string) bool { return sc.activeUntil[k] <= t })
		if pos < 0 { // only with Overlap: every kind left in the round is active
			t += uniform(r, sc.lo, sc.hi).Round(time.Millisecond)
			continue
		}
		s, ok := sc.step(t, pos, healAt)
		if !ok {
			break
		}
		p.Steps = append(p.Steps, s)
		sc.activeUntil[s.Fault.Kind] = s.end()
		gap := uniform(r, sc.lo, sc.hi).Round(time.Millisecond)
		if o.Overlap {
			t += gap
		} else {
			t = s.end() + gap
		}
		if sc.first && len(sc.round) > 0 {
			t = min(t, healAt-sc.needAfter(sc.round))
		}
	}
	return p, nil
}

// scheduler is Schedule's state while it draws a plan.
type scheduler struct {
	r           *rand.Rand
	set         Set
	o           Options
	nems        map[string]Nemesis
	minStep     map[string]time.Duration
	lo, hi      time.Duration            // the interval between faults
	activeUntil map[string]time.Duration // kind -> end of its latest step
	round       []string                 // kinds of the current round not yet drawn
	aimed       map[string]int           // kind -> aimed faults so far
	first       bool                     // the first round, which must fit whole
}

// newScheduler checks o and looks up its kinds.
func newScheduler(r *rand.Rand, set Set, o Options) (*scheduler, error) {
	if o.Faults <= 0 {
		return nil, errors.New("nemesis: schedule needs a positive fault phase")
	}
	if len(o.Kinds) == 0 {
		return nil, errors.New("nemesis: schedule needs at least one fault kind")
	}
	if len(o.Topology.Nodes) == 0 || len(o.Topology.Clients) == 0 {
		return nil, errors.New("nemesis: schedule needs nodes and clients")
	}
	sc := &scheduler{r: r, set: set, o: o, nems: map[string]Nemesis{}, minStep: map[string]time.Duration{},
		activeUntil: map[string]time.Duration{}, aimed: map[string]int{}, first: true}
	for _, k := range o.Kinds {
		n, err := set.Get(k)
		if err != nil {
			return nil, err
		}
		sc.nems[k], sc.minStep[k] = n, MinStep(n, o.Topology)
	}
	var err error
	if sc.lo, sc.hi, err = o.intervals(); err != nil {
		return nil, err
	}
	need, _ := MinFaultPhase(set, o, o.Kinds...)
	if need > o.Faults {
		return nil, fmt.Errorf("%w: one fault of each of %v needs %v, the phase is %v", ErrTooShort, o.Kinds, need, o.Faults)
	}
	return sc, nil
}

// needAfter is the time the first round's kinds not yet scheduled still
// need, gaps included: what the current step must leave free.
func (sc *scheduler) needAfter(rest []string) time.Duration {
	d, _ := MinFaultPhase(sc.set, sc.o, rest...)
	return d
}

// step draws the fault of the round's kind at pos, starting at t, aimed
// or not, and fits it before healAt; false when a later round's fault
// would not start before the heal.
func (sc *scheduler) step(t time.Duration, pos int, healAt time.Duration) (Step, bool) {
	r, o := sc.r, sc.o
	kind := sc.round[pos]
	sc.round = slices.Delete(sc.round, pos, pos+1)
	nem := sc.nems[kind]
	f := nem.Draw(r, o.Topology).clone()
	f.Kind = kind
	if o.TargetHolder > 0 && r.Float64() < o.TargetHolder {
		if tg, ok := nem.(Targeter); ok {
			f = tg.Aim(r, f, o.Topology, sc.aimed[kind]).clone()
			sc.aimed[kind]++
			f.Kind = kind
		}
	}
	s := Step{At: t, Fault: f, Duration: f.Duration}
	limit := healAt // the latest end this step may have
	if sc.first {
		if len(sc.round) > 0 {
			limit = healAt - sc.needAfter(sc.round) - sc.lo
		}
		fit(&s, limit, sc.minStep[kind])
	} else if s.At+s.busy() >= healAt {
		return s, false
	}
	if s.end() > limit {
		s.Duration = limit - s.At - s.busy()
		s.Fault.Duration = s.Duration
	}
	return s, true
}

// fit shortens a step's start (Spec.Squeeze: a crash's restart delay) so
// that the step, kept at its minimum length, ends by limit (the caller
// then clips its Duration).
func fit(s *Step, limit, minStep time.Duration) {
	spec, ok := Lookup(s.Fault.Kind)
	if !ok || spec.Squeeze == nil {
		return
	}
	keep := min(s.Duration, minStep) // the window after the start to keep
	if s.At+s.busy()+keep > limit {
		spec.Squeeze(&s.Fault, max(0, limit-s.At-keep))
	}
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

// Validate checks that every step's kind is in set, that its fault sets
// only fields its kind reads (Spec.Params), and that no time is negative.
func (p Plan) Validate(set Set) error {
	var errs []error
	for i, s := range p.Steps {
		if _, err := set.Get(s.Fault.Kind); err != nil {
			errs = append(errs, fmt.Errorf("step %d: %w", i, err))
		}
		if err := checkParams(s.Fault); err != nil {
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
