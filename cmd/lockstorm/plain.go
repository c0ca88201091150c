package main

import (
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Error messages in words: the parsers lockstorm uses (pflag, strconv,
// encoding/json, YAML) name Go types and YAML tags in their errors
// ("strconv.ParseInt", "!!str `x` into int", "of type nemesis.Plan").
// plain rewrites those into what the value must be, so that every error
// line a user sees names the flag, key or field and what it takes.

// typeWords says what a value of a Go type (or YAML tag) is, in words.
var typeWords = map[string]string{
	"int": "a whole number", "int8": "a whole number", "int16": "a whole number", "int32": "a whole number",
	"int64": "a whole number", "uint": "a whole number", "uint8": "a whole number", "uint16": "a whole number",
	"uint32": "a whole number", "uint64": "a whole number", "float32": "a number", "float64": "a number",
	"bool": "true or false", "string": "a word", "time.Duration": "a duration like 1s or 300ms",
	"duration": "a duration like 1s or 300ms", "stringSlice": "a comma-separated list", "[]string": "a list of words",
	"!!seq": "a list", "!!map": "a mapping", "!!str": "a word", "!!int": "a whole number", "!!float": "a number",
	"!!bool": "true or false", "!!null": "nothing", "array": "a list", "object": "a mapping", "number": "a number",
}

// typeWord is typeWords[t]; "a list" for a slice type, "a mapping" for
// another Go type (a struct, a map: a YAML or JSON mapping).
func typeWord(t string) string {
	switch w, ok := typeWords[t]; {
	case ok:
		return w
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map[") || strings.Contains(t, "."):
		return "a mapping"
	}
	return "a value of another kind"
}

var (
	yamlPrefix     = regexp.MustCompile(`yaml: unmarshal errors:[;\s]*`)
	yamlScalar     = regexp.MustCompile("cannot unmarshal (!!\\w+) `([^`]*)` into (\\S+)")
	yamlCollection = regexp.MustCompile(`cannot unmarshal (!!\w+) into (\S+)`)
	yamlField      = regexp.MustCompile(`field (\S+) not found in type \S+`)
	jsonField      = regexp.MustCompile(`json: cannot unmarshal (\w+) into Go struct field \w+\.(\S+) of type (\S+)`)
	jsonValue      = regexp.MustCompile(`json: cannot unmarshal (\w+) into Go value of type (\S+)`)
	strconvErr     = regexp.MustCompile(`strconv\.\w+: parsing "([^"]*)": (invalid syntax|value out of range)`)
	durationErr    = regexp.MustCompile(`time: (?:invalid duration|missing unit in duration|unknown unit \S+ in duration) "?([^"]*)"?`)
	goType         = regexp.MustCompile(`\b(?:harness|config|analysis|sweep|compare|checker|nemesis|reports|catalog|history|cluster|lockimpl|workloads|time|strconv|json|yaml)\.[A-Z]\w*`)
)

// plain rewrites the Go and YAML type names in msg into words.
func plain(msg string) string {
	msg = yamlPrefix.ReplaceAllString(msg, "")
	msg = yamlScalar.ReplaceAllStringFunc(msg, func(s string) string {
		m := yamlScalar.FindStringSubmatch(s)
		return "want " + typeWord(m[3]) + `, got "` + m[2] + `"`
	})
	msg = yamlCollection.ReplaceAllStringFunc(msg, func(s string) string {
		m := yamlCollection.FindStringSubmatch(s)
		return "want " + typeWord(m[2]) + ", got " + typeWord(m[1])
	})
	msg = yamlField.ReplaceAllString(msg, "unknown key $1")
	msg = jsonField.ReplaceAllStringFunc(msg, func(s string) string {
		m := jsonField.FindStringSubmatch(s)
		return m[2] + " must be " + typeWord(m[3]) + ", got " + typeWord(m[1])
	})
	msg = jsonValue.ReplaceAllStringFunc(msg, func(s string) string {
		m := jsonValue.FindStringSubmatch(s)
		return "want " + typeWord(m[2]) + ", got " + typeWord(m[1])
	})
	msg = strconvErr.ReplaceAllStringFunc(msg, func(s string) string {
		m := strconvErr.FindStringSubmatch(s)
		if m[2] == "value out of range" {
			return `"` + m[1] + `" is out of range`
		}
		return `"` + m[1] + `" is not a number`
	})
	msg = durationErr.ReplaceAllString(msg, `"$1" is not a duration like 1s or 300ms`)
	// what is left: a Go type named in a sentence ("a harness.Plan")
	return goType.ReplaceAllStringFunc(msg, func(s string) string {
		if w, ok := typeWords[s]; ok {
			return strings.TrimPrefix(w, "a ")
		}
		return "value"
	})
}

// flagArgument matches pflag's error for a bad flag argument.
var flagArgument = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-\w, )?--([\w-]+)" flag: `)

// flagError is the one line of a flag cmd refused: "--clients must be a
// whole number, got "abc"" for a bad argument, the parser's own words
// (plain) otherwise.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if m := flagArgument.FindStringSubmatch(msg); m != nil {
		if f := lookupFlag(cmd, m[2]); f != nil {
			return usage("--%s must be %s, got %q", m[2], typeWord(f.Value.Type()), m[1])
		}
	}
	return usage("%s", plain(msg))
}

// lookupFlag finds a flag of cmd, its own or inherited.
func lookupFlag(cmd *cobra.Command, name string) *pflag.Flag {
	if f := cmd.Flags().Lookup(name); f != nil {
		return f
	}
	return cmd.InheritedFlags().Lookup(name)
}
