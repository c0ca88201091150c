package checker

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/lockstorm/lockstorm/history"
)

// ErrInvalidHistory is wrapped by every error Validate returns.
var ErrInvalidHistory = errors.New("checker: invalid history")

// maxProblems is how many problems Validate lists before giving up.
const maxProblems = 10

// MaxTime is the largest time (and TTL) a valid history may carry: 100
// years in ns, so that the sum of two cannot overflow.
const MaxTime int64 = 100 * 365 * 24 * 3600 * 1_000_000_000

// MaxValidity is the largest validity a valid history may carry (a lock
// without expiry claims "now + 100 years").
const MaxValidity = 2 * MaxTime

// Validate checks that h is a well-formed history: records carry the
// indices 0..n-1 in order; a client record is an invoke or a completion
// (ok, fail, info) matching its process's open invoke and F, not before
// it; a process never has two invokes in flight nor invokes after an info
// completion (an invoke never completed is allowed); every Time and TTL
// lies in [0, MaxTime] and every Validity in [0, MaxValidity] (times need
// not be monotonic); FLost records are outside these rules; every nemesis
// stop closes an earlier start of its Fault, and a nemesis F is start,
// stop or heal. The error wraps ErrInvalidHistory and names (at most ten)
// problems.
func Validate(h history.History) error {
	v := newValidator()
	for i := range h {
		if !v.add(i, &h[i]) {
			break
		}
	}
	return v.finish()
}

// validator is Validate one record at a time.
type validator struct {
	probs []string
	ops   history.Pairer // the open invokes
	dead  map[int]int    // process -> its info completion's index
	win   WindowPairer   // the nemesis start and stop records, paired
	end   int64
}

func newValidator() *validator { return &validator{dead: map[int]int{}} }

func (v *validator) addf(format string, args ...any) {
	v.probs = append(v.probs, fmt.Sprintf(format, args...))
}

// add checks record o at position i; false once it has seen enough.
func (v *validator) add(i int, o *history.Op) bool {
	if len(v.probs) >= maxProblems {
		return false
	}
	v.end = max(v.end, o.Time)
	if o.Index != int64(i) {
		v.addf("record %d carries index %d", i, o.Index)
		return true
	}
	if o.Time < 0 || o.Time > MaxTime {
		v.addf("op %d: time %d ns is outside [0, %d] (negative, or beyond 100 years)", i, o.Time, MaxTime)
	}
	if o.TTL < 0 || o.TTL > MaxTime {
		v.addf("op %d: ttl %d ns is outside [0, %d]", i, o.TTL, MaxTime)
	}
	if o.Validity < 0 || o.Validity > MaxValidity {
		v.addf("op %d: validity %d ns is outside [0, %d]", i, o.Validity, MaxValidity)
	}
	if o.IsNemesis() {
		if o.F != history.FStart && o.F != history.FStop && o.F != history.FHeal {
			v.addf("op %d: nemesis record with f %q (want start, stop or heal)", i, o.F)
		}
		v.win.Add(o)
		return true
	}
	if o.F == history.FLost {
		return true
	}
	switch o.Type {
	case history.Invoke:
		if d, dead := v.dead[o.Process]; dead {
			v.addf("op %d: process %d invokes %s after its info completion at op %d", i, o.Process, o.F, d)
		}
		if p, ok := v.ops.Add(o); ok {
			v.addf("op %d: process %d invokes %s while op %d (%s) is still in flight", i, o.Process, o.F, p.Invoke.Index, p.Invoke.F)
		}
	case history.OK, history.Fail, history.Info:
		p, ok := v.ops.Add(o)
		if !ok {
			v.addf("op %d: %s completion of %s by process %d has no open invoke", i, o.Type, o.F, o.Process)
			return true
		}
		if inv := p.Invoke; inv.F != o.F {
			v.addf("op %d: %s completion of %s by process %d does not match its open invoke op %d (%s)", i, o.Type, o.F, o.Process, inv.Index, inv.F)
		}
		if inv := p.Invoke; o.Time < inv.Time {
			v.addf("op %d: completes at %d ns, before its invoke op %d at %d ns", i, o.Time, inv.Index, inv.Time)
		}
		if o.Type == history.Info {
			v.dead[o.Process] = i
		}
	default:
		v.addf("op %d: type %q is not invoke, ok, fail or info", i, o.Type)
	}
	return true
}

// finish checks the fault windows and returns Validate's error.
func (v *validator) finish() error {
	probs := v.probs
	if len(probs) < maxProblems {
		if _, err := v.win.Finish(v.end); err != nil {
			probs = append(probs, err.Error())
		}
	}
	if len(probs) == 0 {
		return nil
	}
	more := ""
	if len(probs) >= maxProblems {
		more = " (stopped after ten problems)"
	}
	return fmt.Errorf("%w: %s%s", ErrInvalidHistory, strings.Join(probs, "; "), more)
}

// tokenCheck is the "tokens" check, ops in invoke order: no token handed
// to two acquires of a key (the first acquire ok and info of each key and
// token are kept in the shared tokTable); writes checks the fences of the
// resource's writes, records in time order.
type tokenCheck struct {
	tab    *tokTable
	al     anomalyList
	reused int
	writes *writeFences
}

// opRef is what an anomaly needs of an op kept for later.
type opRef struct {
	Type     history.Type
	Process  int
	Inv, Ret int64
}

func refOf(o *op) *opRef { return &opRef{o.Type, o.Process, o.Inv, o.Ret} }

func (r *opRef) indices() []int64 {
	if r.Ret < 0 {
		return []int64{r.Inv}
	}
	return []int64{r.Inv, r.Ret}
}

func newTokenCheck(tab *tokTable) *tokenCheck {
	t := &tokenCheck{tab: tab}
	t.writes = &writeFences{cur: map[procKey]*fencedLease{}, byFence: map[keyFence]*fencedLease{}, al: &t.al}
	return t
}

// add takes acquire o and returns the row of its key and token, if it
// has one (no token or failed: none).
func (t *tokenCheck) add(o *op) (uint32, bool) {
	if o.F != history.FAcquire || o.Token == "" || o.Type == history.Fail {
		return 0, false
	}
	i, _ := t.tab.row(o.Key, o.Token)
	ok, hasOK := t.tab.firstOK(i)
	info, hasInfo := t.tab.firstInfo(i)
	var prev *opRef
	switch {
	case hasOK:
		prev = ok.ref(history.OK)
	case o.Type == history.OK && hasInfo:
		prev = info.ref(history.Info)
	}
	if prev != nil {
		t.reused++
		who := fmt.Sprintf("process %d", o.Process)
		if o.Process == prev.Process {
			who = "the same process"
		}
		t.al.add(Anomaly{Kind: "reused-token", Fatal: true, Ops: sortedIndices(prev.indices(), o.indices()),
			Text: fmt.Sprintf("key %q: the lock handed token %q to acquire %s by process %d (op %d) and to acquire %s by %s (op %d): holders sharing a token can release or extend each other's lease",
				o.Key, o.Token, prev.Type, prev.Process, prev.Inv, o.Type, who, o.Inv)})
	}
	switch {
	case o.Type == history.OK && !hasOK:
		t.tab.setFirstOK(i, o)
	case o.Type != history.OK && !hasInfo:
		t.tab.setFirstInfo(i, o)
	}
	return i, true
}

func (t *tokenCheck) result() Result {
	return Result{Name: "tokens", Valid: t.al.verdict(Valid), Anomalies: t.al.list, Details: TokensDetails{ReusedTokens: t.reused}}
}

// TokensDetails summarises a token check: acquires handed a token another
// acquire on the key already had.
type TokensDetails struct {
	ReusedTokens int `json:"reused_tokens"`
}

// Window is one fault's window, from the first record of its start action
// to the last of its stop action (ns since the run started; End is the
// history's end if Unhealed: it ended before the fault stopped). StartOp
// and StopOp are record indices; StopOp is -1 if Unhealed.
type Window struct {
	Fault    string `json:"fault"`
	Detail   string `json:"detail,omitempty"`
	Start    int64  `json:"start"`
	End      int64  `json:"end"`
	StartOp  int64  `json:"start_op"`
	StopOp   int64  `json:"stop_op"`
	Unhealed bool   `json:"unhealed,omitempty"`
}

// Label is "fault[detail]" or "fault".
func (w Window) Label() string {
	if w.Detail == "" {
		return w.Fault
	}
	return w.Fault + "[" + w.Detail + "]"
}

// Contains reports whether time t lies in the window (closed interval).
func (w Window) Contains(t int64) bool { return t >= w.Start && t <= w.End }

// FaultWindows pairs the nemesis records of h into windows, ordered by
// start. A nemesis action is one record or an invoke and its completion
// (same F and Fault). A start opens a window for its Fault (even a failed
// one), a stop closes the oldest open one of its Fault. Detail is the
// start's (its completion's if any). A start never stopped is Unhealed.
func FaultWindows(h history.History) []Window {
	var end int64
	var p WindowPairer
	for i := range h {
		end = max(end, h[i].Time)
		if o := &h[i]; o.IsNemesis() {
			p.Add(o)
		}
	}
	ws, _ := p.Finish(end)
	return ws
}

// WindowPairer is FaultWindows one nemesis record at a time. The zero
// value is ready.
type WindowPairer struct {
	windows []Window
	open    map[string][]int  // fault -> indices into windows, oldest first
	pending map[nemInvoke]int // open nemesis invokes -> record index
	probs   []string
}

// nemInvoke names a nemesis action in flight: its F and Fault.
type nemInvoke struct{ f, fault string }

// WindowEvent is what one nemesis record did to the windows (see Add).
type WindowEvent int

// What a nemesis record did to the windows.
const (
	WindowNone    WindowEvent = iota
	WindowOpened              // a start opened the window
	WindowEnded               // a stop's invoke ended the window, for now: its completion moves the end
	WindowStopped             // a stop's last record (its completion, or its only record) ended the window
)

// Add takes the next nemesis record; it returns the window (its index)
// the record opened or ended, if any. A stop action ends its window at
// its invoke (WindowEnded) and again at its completion (WindowStopped).
func (p *WindowPairer) Add(o *history.Op) (wi int, ev WindowEvent) {
	if o.F != history.FStart && o.F != history.FStop {
		return -1, WindowNone
	}
	if p.open == nil {
		p.open, p.pending = map[string][]int{}, map[nemInvoke]int{}
	}
	i := int(o.Index)
	k := nemInvoke{o.F, o.Fault}
	if o.Type == history.Invoke {
		p.pending[k] = i
	} else if inv, ok := p.pending[k]; ok {
		// the completion of an action already counted at its invoke
		delete(p.pending, k)
		return p.complete(o, inv)
	}
	if o.F == history.FStart {
		p.windows = append(p.windows, Window{Fault: o.Fault, Detail: o.Detail, Start: o.Time, StartOp: int64(i), StopOp: -1})
		p.open[o.Fault] = append(p.open[o.Fault], len(p.windows)-1)
		return len(p.windows) - 1, WindowOpened
	}
	ws := p.open[o.Fault]
	if len(ws) == 0 {
		if len(p.probs) < maxProblems {
			p.probs = append(p.probs, fmt.Sprintf("op %d: nemesis stop of %q without a start", i, o.Fault))
		}
		return -1, WindowNone
	}
	w := &p.windows[ws[0]]
	p.open[o.Fault] = ws[1:]
	w.End = o.Time
	w.StopOp = int64(i)
	if o.Type == history.Invoke {
		return ws[0], WindowEnded
	}
	return ws[0], WindowStopped
}

// complete takes the completion o of the action invoked at record inv.
func (p *WindowPairer) complete(o *history.Op, inv int) (wi int, ev WindowEvent) {
	if o.F == history.FStart {
		if ws := p.open[o.Fault]; len(ws) > 0 && o.Detail != "" {
			p.windows[ws[len(ws)-1]].Detail = o.Detail
		}
		return -1, WindowNone
	}
	for wi := len(p.windows) - 1; wi >= 0; wi-- {
		if p.windows[wi].StopOp == int64(inv) {
			p.windows[wi].End = o.Time
			p.windows[wi].StopOp = int64(o.Index)
			return wi, WindowStopped
		}
	}
	return -1, WindowNone
}

// Finish is the windows so far, those never stopped Unhealed, ending at
// end (the last record's time). It may be called again.
func (p *WindowPairer) Finish(end int64) ([]Window, error) {
	windows := slices.Clone(p.windows)
	for i := range windows {
		if windows[i].StopOp < 0 {
			windows[i].Unhealed = true
			windows[i].End = end
		}
	}
	if len(p.probs) > 0 {
		return windows, fmt.Errorf("%s", strings.Join(p.probs, "; "))
	}
	return windows, nil
}
