package config

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// ReplayArgs are the `lockstorm run` flags that repeat c's run with its
// seed, in the table's order.
func ReplayArgs(c Config) []string {
	var out []string
	for _, s := range Settings() {
		arg, changed := s.value.arg(c)
		switch {
		case s.Replay == ReplayNever, s.Replay == ReplayChanged && !changed:
			continue
		case s.replayIf != nil && !s.replayIf(c):
			continue
		case s.value.isFlag():
			out = append(out, "--"+s.Name)
		default:
			out = append(out, "--"+s.Name, ShellWord(arg))
		}
	}
	return out
}

// ShellWord quotes s for a POSIX shell when it holds anything but
// letters, digits and -_.,:/@+=.
func ShellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,:/@+=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// FlagsMarkdown is the README's table of the flags of fs: the settings
// in the table's order, then fs's other flags by name.
func FlagsMarkdown(fs *pflag.FlagSet) string {
	var b strings.Builder
	b.WriteString("| flag | default | plan key | replayed | meaning |\n|---|---|---|---|---|\n")
	row := func(f *pflag.Flag, def, key, replay, help string) {
		arg, _ := pflag.UnquoteUsage(f)
		name := "`--" + f.Name + "`"
		if arg != "" {
			name = "`--" + f.Name + " " + arg + "`"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", name, cell(def), cell(key), replay, cell(help))
	}
	seen := map[string]bool{}
	for _, s := range Settings() {
		if f := fs.Lookup(s.Name); f != nil {
			row(f, cmp.Or(s.Default, code(s.value.def())), code(s.Name), s.Replay.String(), s.Help)
			seen[s.Name] = true
		}
	}
	fs.VisitAll(func(f *pflag.Flag) { // by name
		if seen[f.Name] || f.Name == "help" {
			return
		}
		def := f.DefValue
		if def == "false" || def == "0" {
			def = ""
		}
		row(f, code(def), "", "no", f.Usage)
	})
	return b.String()
}

// cell is s in a markdown table cell ("—" when empty).
func cell(s string) string {
	if s == "" {
		return "—"
	}
	if !strings.HasPrefix(s, "`") {
		s = strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(s)
	}
	return strings.ReplaceAll(s, "|", `\|`)
}

// code is s as markdown code, or "" when empty.
func code(s string) string {
	if s == "" {
		return ""
	}
	return "`" + s + "`"
}
