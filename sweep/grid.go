// Package sweep compares lock settings by running many lockstorm tests:
// Run sweeps a grid of TTL × renewal interval × client-pause length, one
// or more seeded runs per cell, and writes one comparison folder (a table
// in Markdown and CSV, heat maps of violations and availability, an
// index.html linking every cell's own report). A sweep is resumable: each
// finished cell is a file, and a rerun with the same name skips it.
//
// The package sits beside catalog and compare: each run goes through
// lockstorm.Run, the function users call, so every cell leaves the same
// run folder and report as `lockstorm run`.
package sweep

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/internal/page"
)

// ErrSpec wraps every bad sweep or compare setting: a one-line message
// naming the flag (or YAML key) and what it allows. Exit status 2.
var ErrSpec = errors.New("sweep: bad setting")

func bad(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrSpec, fmt.Sprintf(format, a...))
}

// Renew is one value of the renewal axis: no renewal (the `single` lock),
// a fraction of the cell's TTL ("ttl/3": the `renewable` lock renewing
// every TTL/3) or an absolute interval ("300ms").
type Renew struct {
	// Spec is the value as written: "none", "ttl/3", "300ms".
	Spec string
	// Div, when positive, renews every TTL/Div.
	Div int
	// Every, when positive, renews at this absolute interval.
	Every time.Duration
}

// None reports whether this value means no renewal.
func (r Renew) None() bool { return r.Div <= 0 && r.Every <= 0 }

// Interval is the renewal interval for a lease of ttl; 0 means none.
func (r Renew) Interval(ttl time.Duration) time.Duration {
	switch {
	case r.Div > 0:
		return ttl / time.Duration(r.Div)
	case r.Every > 0:
		return r.Every
	}
	return 0
}

// String is the spec.
func (r Renew) String() string { return r.Spec }

// ParseRenew parses one renewal value: "none" (or "0"), "ttl/N" with N ≥ 2,
// or a positive Go duration.
func ParseRenew(s string) (Renew, error) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "none", "0", "off":
		return Renew{Spec: "none"}, nil
	}
	if rest, ok := strings.CutPrefix(strings.ToLower(s), "ttl/"); ok {
		n, err := strconv.Atoi(rest)
		if err != nil || n < 2 {
			return Renew{}, fmt.Errorf("%q is not ttl/N with a whole N of at least 2", s)
		}
		return Renew{Spec: "ttl/" + rest, Div: n}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return Renew{}, fmt.Errorf("%q is not none, ttl/N or a positive duration like 300ms", s)
	}
	return Renew{Spec: d.String(), Every: d}, nil
}

// ParseRenews parses a comma-separated list of renewal values for flag.
func ParseRenews(flag, s string) ([]Renew, error) {
	var out []Renew
	seen := map[string]bool{}
	for _, part := range splitList(s) {
		r, err := ParseRenew(part)
		if err != nil {
			return nil, bad("--%s must be a comma-separated list of none, ttl/N or durations like 300ms: %v", flag, err)
		}
		if seen[r.Spec] {
			return nil, bad("--%s lists %s twice", flag, r.Spec)
		}
		seen[r.Spec] = true
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, bad("--%s needs at least one value (none, ttl/N or a duration)", flag)
	}
	return out, nil
}

// ParseDurations parses the comma-separated list of the axis setting
// flag (config.Axes: ttl, pause): each value a duration ("0" or "none"
// for 0) that the axis's own rule admits, each at most once.
func ParseDurations(flag, s string) ([]time.Duration, error) {
	var out []time.Duration
	axis := config.AxisOf(flag)
	for _, part := range splitList(s) {
		var d time.Duration
		if part != "0" && !strings.EqualFold(part, "none") {
			v, err := time.ParseDuration(part)
			if err != nil {
				return nil, bad("--%s must be a comma-separated list of durations like 300ms or 1.5s, got %q", flag, part)
			}
			d = v
		}
		if err := axis.Check(d); err != nil {
			return nil, bad("%v", err)
		}
		if slices.Contains(out, d) {
			return nil, bad("--%s lists %v twice", flag, d)
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return nil, bad("--%s needs at least one value", flag)
	}
	return out, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// ParseFencing parses the fencing axis for flag: a comma-separated list
// of off and on (also false/true, no/yes), each at most once.
func ParseFencing(flag, s string) ([]bool, error) {
	var out []bool
	for _, part := range splitList(s) {
		var v bool
		switch strings.ToLower(part) {
		case "off", "false", "no":
		case "on", "true", "yes":
			v = true
		default:
			return nil, bad("--%s must be a comma-separated list of off and on, got %q", flag, part)
		}
		for _, o := range out {
			if o == v {
				return nil, bad("--%s lists %s twice", flag, onOff(v))
			}
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, bad("--%s needs at least one value (off, on)", flag)
	}
	return out, nil
}

// ParseNemeses parses the fault axis for flag: a comma-separated list of
// client-pause and partition, each at most once.
func ParseNemeses(flag, s string) ([]string, error) {
	var out []string
	for _, part := range splitList(s) {
		n := strings.ToLower(part)
		if n != NemesisClientPause && n != NemesisPartition {
			return nil, bad("--%s must be a comma-separated list of %s and %s, got %q", flag, NemesisClientPause, NemesisPartition, part)
		}
		if slices.Contains(out, n) {
			return nil, bad("--%s lists %s twice", flag, n)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, bad("--%s needs at least one value (%s, %s)", flag, NemesisClientPause, NemesisPartition)
	}
	return out, nil
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// Grid is the sweep's axes, in the order given.
type Grid struct {
	TTLs   []time.Duration
	Renews []Renew
	// Pauses are client-pause lengths; 0 means no faults at all.
	Pauses []time.Duration
	// Fencing is the fencing axis. Off runs every renewal value's lock
	// (single or renewable) without fencing; on runs the fenced lock
	// against a resource that rejects stale fencing tokens. The fenced
	// lock has no watchdog, so fencing on is one setting, not one per
	// renewal value. Empty means off only.
	Fencing []bool
	// Nemeses are the faults each pause length is run with, the --nemesis
	// axis: NemesisClientPause (a SIGSTOP of the holder) and
	// NemesisPartition (the holder cut off from every node). Empty means
	// client-pause only.
	Nemeses []string
	// Lock says what lock the grid runs: its names of the two settings
	// and the label of a process client. Zero for lockstorm's own locks.
	Lock Subject
}

// Subject is the lock a grid runs when it is not one of lockstorm's own:
// a process client's label and the library's names of the two settings
// the grid varies (a zoo entry's settings: map), so that titles and the
// recommendation speak the library's language.
type Subject struct {
	// Label names the lock ("rueidislock-v1.0.80"); "" for lockstorm's
	// own locks (single, renewable, fenced).
	Label string `json:"label,omitempty"`
	// TTL and Renew are the library's names for the lease TTL and the
	// renewal interval ("KeyValidity", "ExtendInterval"); "" when not
	// mapped.
	TTL   string `json:"ttl,omitempty"`
	Renew string `json:"renew,omitempty"`
	// NoTokens is true for a lock known to issue no fencing tokens.
	NoTokens bool `json:"no_tokens,omitempty"`
}

// ttlName is what the TTL is called: "TTL" or the library's name.
func (s Subject) ttlName() string {
	if s.TTL != "" {
		return s.TTL
	}
	return "TTL"
}

// Name is a setting's short name in the library's words when the
// subject maps them: "ExtendInterval ttl/3" for "renew ttl/3".
func (s Subject) Name(st Setting) string {
	name := st.Name()
	switch {
	case s.Renew == "" || st.Fenced:
	case st.Renew == "none":
		name = s.Renew + " unset" + strings.TrimPrefix(name, "renew none")
	default:
		name = s.Renew + strings.TrimPrefix(name, "renew")
	}
	return name
}

// describe is a setting's lock as a heat map panel says it after the
// setting's name, "" when the name says it all.
func (s Subject) describe(st Setting) string {
	if s.Label == "" {
		switch {
		case st.Fenced:
			return "fenced lock, stale writes rejected"
		case st.Renew != "none":
			return "renewable lock, watchdog every " + st.Renew
		}
		return "single lock, no renewal"
	}
	if st.Fenced {
		return "stale writes rejected"
	}
	return "" // the page's title names the lock; the setting's name says the rest
}

// The faults of the --nemesis axis.
const (
	NemesisClientPause = "client-pause"
	NemesisPartition   = "partition"
)

// nemeses is g's fault axis, client-pause when empty.
func (g Grid) nemeses() []string {
	if len(g.Nemeses) == 0 {
		return []string{NemesisClientPause}
	}
	return g.Nemeses
}

// Setting is one lock setting of the grid, one heat-map panel: a
// renewal value without fencing, or the fenced lock (Renew "none").
type Setting struct {
	Renew  string
	Fenced bool
	// Nemesis is the fault of the setting's panel: "" for a client
	// pause, else its name (NemesisPartition).
	Nemesis string
}

// Name is the setting's short name: "renew ttl/3" or "fenced", with the
// fault after a comma when it is not a client pause ("renew ttl/3,
// partition").
func (s Setting) Name() string {
	name := "renew " + s.Renew
	if s.Fenced {
		name = "fenced"
	}
	if s.Nemesis != "" && s.Nemesis != NemesisClientPause {
		name += ", " + s.Nemesis
	}
	return name
}

// Lock is the setting without its fault: the lock setting the
// recommendation speaks of.
func (s Setting) Lock() Setting { s.Nemesis = ""; return s }

// Settings lists the grid's panels: each fault of the nemesis axis,
// and under it the lock settings (LockSettings).
func (g Grid) Settings() []Setting {
	var out []Setting
	for _, n := range g.nemeses() {
		for _, s := range g.LockSettings() {
			s.Nemesis = faultKey(n)
			out = append(out, s)
		}
	}
	return out
}

// LockSettings lists the grid's lock settings: the renewal values
// (fencing off), then the fenced lock (fencing on), in the order of the
// fencing axis.
func (g Grid) LockSettings() []Setting {
	fencing := g.Fencing
	if len(fencing) == 0 {
		fencing = []bool{false}
	}
	var out []Setting
	for _, f := range fencing {
		if f {
			out = append(out, Setting{Renew: "none", Fenced: true})
			continue
		}
		for _, r := range g.Renews {
			out = append(out, Setting{Renew: r.Spec})
		}
	}
	return out
}

// Cell is one point of the grid and one of its seeded runs.
type Cell struct {
	TTL   time.Duration `json:"ttl_ns"`
	Renew string        `json:"renew"` // the Renew spec; "none" when Fenced
	// Fenced runs the fenced lock against a fencing resource. Cells
	// stored before fencing was an axis lack it: off.
	Fenced bool          `json:"fenced,omitempty"`
	Pause  time.Duration `json:"pause_ns"`
	// Nemesis is the fault run for Pause: "" for a client pause (as in
	// cells stored before the axis), else its name (NemesisPartition).
	Nemesis string `json:"nemesis,omitempty"`
	// Run numbers a cell's repeated runs from 1; run k uses seed + k − 1
	// (the same seeds in every cell, so cells differ only by setting).
	Run int `json:"run"`

	renew Renew
}

// Setting is the cell's lock setting.
func (c Cell) Setting() Setting {
	return Setting{Renew: c.Renew, Fenced: c.Fenced, Nemesis: faultKey(c.Nemesis)}
}

// Point is the cell's grid point (the cell without its run number).
func (c Cell) Point() Point {
	return pointOf(c.TTL, c.Setting(), c.Pause)
}

// pointOf is the grid point of a setting at a TTL and fault length. A
// length of 0 is no fault at all, whatever the fault: one point (and one
// cell, Grid.Cells) for every fault of the axis.
func pointOf(ttl time.Duration, st Setting, pause time.Duration) Point {
	p := Point{TTL: ttl, Renew: st.Renew, Pause: pause, Fenced: st.Fenced, Nemesis: faultKey(st.Nemesis)}
	if pause == 0 {
		p.Nemesis = ""
	}
	return p
}

// nemesisOf is a fault's name, client-pause for "".
func nemesisOf(n string) string {
	if n == "" {
		return NemesisClientPause
	}
	return n
}

// faultKey is how points, settings and cells keep a fault: "" for a
// client pause (as every cell stored before the nemesis axis), else its
// name.
func faultKey(n string) string {
	if n == NemesisClientPause {
		return ""
	}
	return n
}

// RenewValue is the parsed renewal value.
func (c Cell) RenewValue() Renew {
	if c.renew.Spec == "" {
		c.renew, _ = ParseRenew(c.Renew)
	}
	return c.renew
}

// ID names the cell's file: ttl-200ms_renew-ttl3_pause-1.5s_run-1,
// ttl-200ms_fenced_pause-1.5s_run-1, or with a partition in place of the
// pause ttl-200ms_renew-ttl3_partition-1.5s_run-1 (client-pause cells
// keep the names they had before the fencing and nemesis axes, so older
// sweeps resume).
func (c Cell) ID() string {
	setting := "renew-" + strings.ReplaceAll(c.Renew, "/", "")
	if c.Fenced {
		setting = "fenced"
	}
	fault := "pause"
	if n := nemesisOf(c.Nemesis); n != NemesisClientPause {
		fault = n
	}
	return fmt.Sprintf("ttl-%s_%s_%s-%s_run-%d", page.Dur(c.TTL), setting, fault, page.Dur(c.Pause), c.Run)
}

// Label is a short human description: "ttl 200ms, renew ttl/3, pause
// 1.5s", "ttl 200ms, fenced, pause 1.5s" or "ttl 200ms, renew ttl/3,
// partition 1.5s".
func (c Cell) Label() string {
	return fmt.Sprintf("ttl %s, %s, %s %s", page.Dur(c.TTL), c.Setting().Lock().Name(), c.faultWord(), c.pauseText())
}

// faultWord is "pause" for a client pause, else the fault's name.
func (c Cell) faultWord() string {
	if n := nemesisOf(c.Nemesis); n != NemesisClientPause {
		return n
	}
	return "pause"
}

// pauseText is the cell's pause length, "none" for none.
func (c Cell) pauseText() string {
	if c.Pause > 0 {
		return page.Dur(c.Pause)
	}
	return "none"
}

// ReportTitle is what the report of the cell's run of lock says it is
// (config.Config.Cell): "lock renewable, ttl 200ms, renew ttl/3,
// fencing off, pause 1.5s, run 2".
func (c Cell) ReportTitle(lock string) string {
	renew, fencing := c.Setting().Lock().Name(), "off"
	if c.Fenced {
		renew, fencing = "renew none", "on"
	}
	return fmt.Sprintf("lock %s, ttl %s, %s, fencing %s, %s %s, run %d", lock, page.Dur(c.TTL), renew, fencing, c.faultWord(), c.pauseText(), c.Run)
}

// Cells lists the grid's cells, runs times each: TTL outermost, then
// setting (Settings: fault, then lock setting), then pause, then run.
func (g Grid) Cells(runs int) []Cell {
	renews := map[string]Renew{}
	for _, r := range g.Renews {
		renews[r.Spec] = r
	}
	var out []Cell
	for _, ttl := range g.TTLs {
		for _, s := range g.Settings() {
			r := renews[s.Renew]
			if s.Fenced {
				r = Renew{Spec: "none"}
			}
			for _, p := range g.Pauses {
				if p == 0 && faultKey(s.Nemesis) != faultKey(g.nemeses()[0]) {
					continue // no fault: the first fault's cell is this point's
				}
				for k := 1; k <= runs; k++ {
					out = append(out, Cell{TTL: ttl, Renew: s.Renew, Fenced: s.Fenced, Pause: p, Nemesis: s.Nemesis, Run: k, renew: r})
				}
			}
		}
	}
	return out
}
