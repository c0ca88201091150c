package nemesis

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// ErrBadFault means a fault cannot be applied as given: a field its kind
// does not read, a target missing or too many, a negative time.
var ErrBadFault = errors.New("nemesis: invalid fault")

// param is one field of a Fault as the Detail text names it ("nodes",
// "delay", ...) and as a Spec lists it in Params.
type param struct {
	name string
	// value is the field as Detail text; "" when it is not set.
	value func(Fault) string
	// common fields belong to every kind (Spec.Params leaves them out).
	common bool
}

// faultParams are the Fault's fields in the order Fault.String writes
// them.
var faultParams = []param{
	{name: "shape", value: func(f Fault) string { return f.Shape }},
	{name: "nodes", value: func(f Fault) string { return strings.Join(f.Nodes, ",") }},
	{name: "clients", value: func(f Fault) string { return strings.Join(f.Clients, ",") }},
	{name: "links", value: linksText},
	{name: "delay", value: func(f Fault) string {
		if f.Delay == 0 && f.Jitter == 0 {
			return ""
		}
		return f.Delay.String() + "±" + f.Jitter.String()
	}},
	{name: "stream", value: func(f Fault) string { return string(f.Stream) }},
	{name: "restart-delay", value: func(f Fault) string { return durationText(f.RestartDelay) }},
	{name: "jump-by", value: func(f Fault) string { return durationText(f.JumpBy) }},
	{name: "duration", value: func(f Fault) string { return durationText(f.Duration) }, common: true},
	{name: "target", value: func(f Fault) string { return f.Target }, common: true},
}

// linksText is "c1>n2,c2>n2".
func linksText(f Fault) string {
	ls := make([]string, len(f.Links))
	for i, l := range f.Links {
		ls[i] = l.Client + ">" + l.Target
	}
	return strings.Join(ls, ",")
}

// durationText is d, or "" for zero.
func durationText(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return d.String()
}

// paramNames are the names a Spec may list in Params.
func paramNames() []string {
	var out []string
	for _, p := range faultParams {
		if !p.common {
			out = append(out, p.name)
		}
	}
	return out
}

// checkParams refuses a fault that sets a field its kind does not read
// (a delay on a crash): the field would be silently ignored.
func checkParams(f Fault) error {
	spec, ok := Lookup(f.Kind)
	if !ok {
		return nil // the caller reports the unknown kind
	}
	for _, p := range faultParams {
		if !p.common && p.value(f) != "" && !slices.Contains(spec.Params, p.name) {
			return fmt.Errorf("%w: %s takes no %s (it takes %v)", ErrBadFault, f.Kind, p.name, spec.Params)
		}
	}
	return nil
}
