package zoo

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lockstorm/lockstorm/internal/store"
)

// Files of a zoo run's folder (store/zoo/<time>/).
const (
	JSONFile     = "zoo.json"
	MarkdownFile = "zoo.md"
	PageFile     = "index.html"
)

// Write stores the board in a new folder store/zoo/<time>, links
// store/zoo/latest to it, and returns the folder.
func Write(b *Board, root string) (string, error) {
	dir, err := store.NewRunDir(root, "zoo")
	if err != nil {
		return "", err
	}
	b.Dir = dir
	if err := store.WriteJSON(filepath.Join(dir, JSONFile), b); err != nil {
		return dir, err
	}
	if err := os.WriteFile(filepath.Join(dir, MarkdownFile), []byte(Markdown(b)), 0o644); err != nil {
		return dir, err
	}
	page, err := Page(b)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, PageFile), page, 0o644)
	}
	if err != nil {
		return dir, err
	}
	store.LinkLatest(dir)
	return dir, nil
}

// cellText is a cell in a few words: "2/3 detected (lock), 6.1 s, known
// bug reproduced".
func cellText(c CellOutcome) string {
	if c.Status == Skipped {
		return "skipped"
	}
	if c.Summary == "" {
		return "unknown (not run)"
	}
	s := c.Summary
	if len(c.Flagged) > 0 {
		s += " (" + strings.Join(c.Flagged, ", ") + ")"
	}
	if c.MedianDetectS != nil {
		s += fmt.Sprintf(", %.1f s", *c.MedianDetectS)
	}
	return s + ", " + string(cmp.Or(c.Class, classOf(c.Cell, c.Status)))
}

// SummaryLine is the board's counts in one sentence.
func SummaryLine(s Summary) string {
	return fmt.Sprintf("%d libraries, %d entries. Known bugs reproduced: %d of %d listed. Fixed twins clean: %d of %d. New findings: %d. Missed: %d. Unknown: %d.",
		s.Libraries, s.Entries, s.KnownReproduced, s.KnownListed, s.FixedClean, s.FixedTwins, s.NewFindings, s.Missed, s.Unknown)
}

// Markdown is zoo.md: the scoreboard table (entries by faults), the known
// bugs, each entry's claims, then every finding, missed and unknown cell
// with its runs' replay lines.
func Markdown(b *Board) string {
	var w strings.Builder
	n := b.Count()
	fmt.Fprintf(&w, "# lockstorm zoo\n\n**%s**\n\n%d seeds per cell, %s per run, %.0f s in all. Cells: %d agree, %d findings, %d missed, %d unknown, %d skipped.\n\n",
		SummaryLine(b.Summary), b.Seeds, b.TimeLimit, b.Seconds, n[string(Agree)], n[string(Finding)], n[string(Missed)], n[string(Unknown)], n[string(Skipped)])
	w.WriteString("A cell is k/N valid (expected valid) or k/N detected (expected invalid: the named checkers flagged it), the checkers that flagged any run, the median time to detect (seconds into the run), and what the cell is: a known bug reproduced (the cell names the upstream bug), a fixed version clean (the twin carrying its fix), a new finding, missed, unknown, or agrees (the documented behaviour, as expected).\n\n")
	w.WriteString("| entry | library | version | language |")
	for _, c := range b.Columns {
		w.WriteString(" " + c + " |")
	}
	w.WriteString("\n|---|---|---|---|" + strings.Repeat("---|", len(b.Columns)) + "\n")
	for _, e := range b.Entries {
		fmt.Fprintf(&w, "| %s | %s | %s | %s |", e.Name, mdEscape(e.Library), mdEscape(e.Version), e.Language)
		for _, col := range b.Columns {
			if c := cellAt(e, col); c == nil {
				w.WriteString(" — |")
			} else {
				w.WriteString(" " + mdEscape(cellText(*c)) + " |")
			}
		}
		w.WriteString("\n")
	}
	if len(b.Summary.KnownURLs) > 0 {
		writeKnownBugs(&w, b)
	}
	w.WriteString("\n## Claims\n\n")
	for _, e := range b.Entries {
		fmt.Fprintf(&w, "- **%s** (%s): %s\n", e.Name, e.Upstream, e.Claims)
		if e.Skipped != "" {
			fmt.Fprintf(&w, "  - skipped: %s\n", e.Skipped)
		}
		if e.BuildError != "" {
			fmt.Fprintf(&w, "  - build failed: %s\n", e.BuildError)
		}
	}
	for _, want := range []Status{Finding, Missed, Unknown} {
		writeStatusSection(&w, b, want)
	}
	return w.String()
}

// writeKnownBugs writes zoo.md's section of the cells that name an
// upstream bug (known:) or its fix (fixed:), with each known bug's twin.
func writeKnownBugs(w *strings.Builder, b *Board) {
	w.WriteString("\n## Known bugs\n\n")
	for _, e := range b.Entries {
		for _, c := range e.Cells {
			if c.Cell.Known == "" && c.Cell.Fixed == "" {
				continue
			}
			fmt.Fprintf(w, "- %s · %s (%s): %s", e.Name, c.Column, cmp.Or(c.Cell.Known, c.Cell.Fixed), mdEscape(cellText(c)))
			if c.Cell.Known != "" {
				if t := b.Twin(e, c); t != "" {
					fmt.Fprintf(w, "; fixed twin %s", mdEscape(t))
				} else {
					w.WriteString("; no fixed twin in the zoo (the fix is not in a release reachable here)")
				}
			}
			w.WriteString("\n")
		}
	}
}

// writeStatusSection writes zoo.md's section of the cells of status want
// (findings, missed or unknown cells), each with its runs' replay lines;
// nothing when no cell has it.
func writeStatusSection(w *strings.Builder, b *Board, want Status) {
	title := map[Status]string{Finding: "New findings (a checker flagged what the documentation promises, or a fixed version is not clean)",
		Missed:  "Missed (the failure the documentation leads one to expect did not show: the library does better, or lockstorm's faults did not reach it)",
		Unknown: "Unknown cells"}[want]
	first := true
	for _, e := range b.Entries {
		for _, c := range e.Cells {
			if c.Status != want {
				continue
			}
			if first {
				fmt.Fprintf(w, "\n## %s\n", title)
				first = false
			}
			fmt.Fprintf(w, "\n### %s · %s: expected %s, observed %s\n\n%s\n\n", e.Name, c.Column, c.Cell.Expected(), c.Summary, c.Cell.Why)
			for _, r := range c.Runs {
				fmt.Fprintf(w, "- seed %d: %s, %s", r.Seed, r.Verdict, r.Status)
				if len(r.Flagged) > 0 {
					fmt.Fprintf(w, " (%s)", strings.Join(r.Flagged, ", "))
				}
				if r.First != "" {
					fmt.Fprintf(w, "; first anomaly: %s", r.First)
				}
				if r.Error != "" {
					fmt.Fprintf(w, "; %s", r.Error)
				}
				fmt.Fprintf(w, "\n  - `%s`\n  - %s\n", r.Replay, r.Dir)
			}
		}
	}
}

// cellAt is the entry's cell in column, nil when it has none.
func cellAt(e EntryOutcome, column string) *CellOutcome {
	if i := slices.IndexFunc(e.Cells, func(c CellOutcome) bool { return c.Column == column }); i >= 0 {
		return &e.Cells[i]
	}
	return nil
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
