// Package page holds what the sweep and compare pages share: their style,
// template functions and the way they inline plots and link run reports.
package page

import (
	"encoding/base64"
	"fmt"
	"html/template"
	"path"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/internal/store"
)

// Style is the CSS of the sweep and compare pages.
const Style = `
body { font-family: "Liberation Sans", Arial, sans-serif; margin: 1.5em auto; max-width: 1500px; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; margin-bottom: .2em; } h2 { font-size: 1.2em; margin-top: 1.6em; }
table { border-collapse: collapse; font-size: .9em; } th, td { border: 1px solid #ccc; padding: .25em .55em; }
th { background: #f0f0f0; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.invalid { color: #b00; font-weight: bold; } .valid { color: #176b2c; font-weight: bold; } .unknown { color: #a66b00; font-weight: bold; }
img { max-width: 100%; border: 1px solid #ddd; } .note { color: #555; font-size: .92em; max-width: 75em; }
.pass { background: #e6f4ea; border: 1px solid #8c8; padding: .5em 1em; } .fail { background: #fdecea; border: 1px solid #d88; padding: .5em 1em; }
.side { display: flex; gap: 1.5em; } .side > div { flex: 1; min-width: 0; }
`

// Funcs are the pages' template functions: dur, ms, pct, lost, secs,
// count (a count with its noun), link (a run's report) and plot (a file
// of a run folder).
var Funcs = template.FuncMap{
	"count": Count[int],
	"dur":   Dur,
	"ms":    MS,
	"pct":   func(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) },
	"lost":  Lost,
	"secs":  func(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) },
	"link":  ReportLink,
	"plot":  RunFile,
}

// Dur prints a duration without trailing zero units ("1s", "1.5s",
// "200ms", "0").
func Dur(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	return d.String()
}

// Durs is ds printed by Dur, comma-separated.
func Durs(ds []time.Duration) string {
	var parts []string
	for _, d := range ds {
		parts = append(parts, Dur(d))
	}
	return strings.Join(parts, ", ")
}

// Millis is d in milliseconds.
func Millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// MS prints d in milliseconds: whole ones from 10ms, else to a tenth.
func MS(d time.Duration) string {
	if d >= 10*time.Millisecond {
		return fmt.Sprintf("%.0fms", Millis(d))
	}
	return fmt.Sprintf("%.1fms", Millis(d))
}

// Lost prints a count of lost updates, "?" when unknown (negative).
func Lost(n int64) string {
	if n < 0 {
		return "?"
	}
	return fmt.Sprint(n)
}

// PNG is b as a data URL to inline in a page; empty for no bytes.
func PNG(b []byte) template.URL {
	if len(b) == 0 {
		return ""
	}
	return template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(b))
}

// RunFile is the path from a page's folder (store/sweeps/<name>,
// store/compare/<timestamp>) to file of the run folder dir (relative to
// the store).
func RunFile(dir, file string) string { return path.Join("..", "..", dir, file) }

// ReportLink is the path from a page's folder to run dir's report.
func ReportLink(dir string) string { return RunFile(dir, store.IndexFile) }

// TokenChars is how many characters of a lock token ShortToken keeps.
const TokenChars = 8

// ShortToken is a lock token as boxes and tables show it: its first
// TokenChars characters and "…" when it is longer (a 32-digit hex token
// becomes "25211190…"); the page gives the whole token in a tooltip.
func ShortToken(t string) string {
	r := []rune(t)
	if len(r) <= TokenChars+1 {
		return t
	}
	return string(r[:TokenChars]) + "…"
}
