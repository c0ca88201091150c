package config

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
)

// value is what a Setting does with its Config field, whatever its type.
type value interface {
	bind(fs *pflag.FlagSet, c *Config, name, usage string) // as the flag name, with the default
	decode(n *yaml.Node, c *Config, name string) error     // from a plan's value of key name
	copy(dst, src *Config)
	given(c *Config) // maps a value given explicitly to the field's meaning
	fill(c *Config)  // gives a zero field its default
	// arg is the field as a flag argument; changed is whether it differs
	// from zero and from the default.
	arg(c Config) (arg string, changed bool)
	def() string  // the default as text, "" when none
	isFlag() bool // a bool flag: it takes no argument
}

// typed is a value of a field of type T.
type typed[T any] struct {
	field    func(*Config) *T
	dflt     T                                                                 // the flag's default, and fill's
	flag     func(fs *pflag.FlagSet, p *T, name string, value T, usage string) // pflag's StringVar, IntVar...
	parse    func(n *yaml.Node, name string) (T, error)                        // nil: parseScalar
	format   func(T) string                                                    // as a flag argument
	zero     func(T) bool
	explicit func(T) T // when set, maps a value given explicitly to the field
}

func (v typed[T]) bind(fs *pflag.FlagSet, c *Config, name, usage string) {
	v.flag(fs, v.field(c), name, v.dflt, usage)
}

func (v typed[T]) decode(n *yaml.Node, c *Config, name string) error {
	parse := v.parse
	if parse == nil {
		parse = parseScalar[T]
	}
	x, err := parse(n, name)
	if err != nil {
		return err
	}
	*v.field(c) = x
	v.given(c)
	return nil
}

func (v typed[T]) copy(dst, src *Config) { *v.field(dst) = *v.field(src) }

func (v typed[T]) given(c *Config) {
	if v.explicit != nil {
		p := v.field(c)
		*p = v.explicit(*p)
	}
}

func (v typed[T]) fill(c *Config) {
	if p := v.field(c); v.zero(*p) {
		*p = v.dflt
	}
}

func (v typed[T]) arg(c Config) (string, bool) {
	x := *v.field(&c)
	s := v.format(x)
	return s, !v.zero(x) && s != v.format(v.dflt)
}

func (v typed[T]) def() string {
	if v.zero(v.dflt) {
		return ""
	}
	return v.format(v.dflt)
}

func (v typed[T]) isFlag() bool {
	_, ok := any(v.dflt).(bool)
	return ok
}

func isZero[T comparable](x T) bool {
	var z T
	return x == z
}

// text is a string setting.
func text(field func(*Config) *string, def string) value {
	return typed[string]{field: field, dflt: def, flag: (*pflag.FlagSet).StringVar,
		format: func(s string) string { return s }, zero: isZero[string]}
}

// flag is a bool setting, off by default.
func flag(field func(*Config) *bool) value {
	return typed[bool]{field: field, flag: (*pflag.FlagSet).BoolVar, format: strconv.FormatBool, zero: isZero[bool]}
}

// integer is an int or int64 setting; explicit (may be nil) maps a value
// given explicitly to the field.
func integer[T int | int64](field func(*Config) *T, def T, explicit func(T) T) value {
	v := typed[T]{field: field, dflt: def, zero: isZero[T], explicit: explicit,
		format: func(x T) string { return strconv.FormatInt(int64(max(x, 0)), 10) }}
	if explicit == nil {
		v.format = func(x T) string { return strconv.FormatInt(int64(x), 10) }
	}
	switch f := any(&v.flag).(type) {
	case *func(*pflag.FlagSet, *int, string, int, string):
		*f = (*pflag.FlagSet).IntVar
	case *func(*pflag.FlagSet, *int64, string, int64, string):
		*f = (*pflag.FlagSet).Int64Var
	}
	return v
}

// probability is a float setting in [0, 1] where a given 0 means never
// (GivenTargetHolder): stored as −1, written back as 0.
func probability(field func(*Config) *float64, def float64) value {
	return typed[float64]{field: field, dflt: def, flag: (*pflag.FlagSet).Float64Var, zero: isZero[float64],
		explicit: GivenTargetHolder,
		format:   func(x float64) string { return strconv.FormatFloat(max(x, 0), 'g', -1, 64) }}
}

// duration is a duration setting; a plan writes it as a Go duration
// ("1.5s", "300ms").
func duration(field func(*Config) *time.Duration, def time.Duration) value {
	return typed[time.Duration]{field: field, dflt: def, flag: (*pflag.FlagSet).DurationVar,
		format: asciiDuration, zero: isZero[time.Duration], parse: parseDuration}
}

// asciiDuration is d as Go writes it with "us" for "µs", which shells
// and CI files may mangle.
func asciiDuration(d time.Duration) string {
	return strings.Replace(d.String(), "µs", "us", 1)
}

func parseDuration(n *yaml.Node, name string) (time.Duration, error) {
	if n.Kind != yaml.ScalarNode {
		return 0, fmt.Errorf("line %d: %s must be a duration like 1s or 300ms, got a %s", n.Line, name, kindWord(n.Kind))
	}
	s, _ := parseScalar[string](n, name)
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("line %d: %s must be a duration like 1s or 300ms, got %q", n.Line, name, s)
	}
	return d, nil
}

// parseScalar reads a plan's scalar value as T; a wrong kind is an error
// naming the key and what it takes, in words.
func parseScalar[T any](n *yaml.Node, name string) (T, error) {
	var x T
	want := map[string]string{"string": "a word", "bool": "true or false", "int": "a whole number",
		"int64": "a whole number", "float64": "a number"}[fmt.Sprintf("%T", x)]
	if n.Kind != yaml.ScalarNode {
		return x, fmt.Errorf("line %d: %s must be %s, got a %s", n.Line, name, want, kindWord(n.Kind))
	}
	if n.Tag == "!!null" {
		return x, nil
	}
	var err error
	switch p := any(&x).(type) {
	case *string:
		*p = n.Value
	case *bool:
		if n.Tag != "!!bool" {
			err = errBadScalar
		} else {
			err = n.Decode(p)
		}
	case *int:
		var v int64
		if v, err = strconv.ParseInt(n.Value, 10, 0); n.Tag != "!!int" {
			err = errBadScalar
		}
		*p = int(v)
	case *int64:
		if *p, err = strconv.ParseInt(n.Value, 10, 64); n.Tag != "!!int" {
			err = errBadScalar
		}
	case *float64:
		if n.Tag != "!!int" && n.Tag != "!!float" {
			err = errBadScalar
		} else {
			err = n.Decode(p)
		}
	}
	if err != nil {
		var zero T
		return zero, fmt.Errorf("line %d: %s must be %s, got %q", n.Line, name, want, n.Value)
	}
	return x, nil
}

var errBadScalar = fmt.Errorf("bad scalar")

// kindWord names a YAML node kind for an error message.
func kindWord(k yaml.Kind) string {
	return cmp.Or(map[yaml.Kind]string{yaml.SequenceNode: "list", yaml.MappingNode: "mapping"}[k], "value of another kind")
}

// list is a list setting whose flag is pflag's string slice (CSV,
// repeatable); a plan writes a YAML list.
func list(field func(*Config) *[]string) value {
	return typed[[]string]{field: field, flag: (*pflag.FlagSet).StringSliceVar,
		format: func(l []string) string { return strings.Join(l, ",") },
		zero:   func(l []string) bool { return len(l) == 0 }, parse: parseList}
}

// parseList reads a plan's list value: a YAML list, or one string as on
// the command line ("partition,latency").
func parseList(n *yaml.Node, name string) ([]string, error) {
	var out []string
	switch n.Kind {
	case yaml.ScalarNode:
		return splitList(n.Value), nil
	case yaml.SequenceNode:
		for _, item := range n.Content {
			if item.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: %s must be a list of words or one comma-separated string", item.Line, name)
			}
			out = append(out, item.Value)
		}
		return out, nil
	}
	return nil, fmt.Errorf("line %d: %s must be a list of words or one comma-separated string", n.Line, name)
}

// splitList is the non-empty words of a comma-separated s, trimmed.
func splitList(s string) (out []string) {
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// commaList is a list setting whose flag is one comma-separated string
// (given again, it replaces the list); a plan writes a YAML list.
func commaList(field func(*Config) *[]string) value {
	v := list(field).(typed[[]string])
	v.flag = func(fs *pflag.FlagSet, p *[]string, name string, _ []string, usage string) {
		fs.Var((*commaValue)(p), name, usage)
	}
	return v
}

// commaValue is a pflag.Value over a list written "a,b,c".
type commaValue []string

func (l *commaValue) String() string { return strings.Join(*l, ",") }
func (l *commaValue) Type() string   { return "string" }

func (l *commaValue) Set(s string) error {
	*l = nil
	if s != "" {
		*l = strings.Split(s, ",")
	}
	return nil
}
