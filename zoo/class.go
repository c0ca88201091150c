package zoo

import (
	"slices"
	"strings"
)

// Class is what a cell means on the scoreboard, beyond agreeing or not.
type Class string

const (
	ClassKnown   Class = "known bug reproduced" // a known: cell that agrees
	ClassFixed   Class = "fixed version clean"  // a fixed: cell that agrees
	ClassFinding Class = "new finding"          // a checker flagged what the documentation promises
	ClassMissed  Class = "missed"               // the expected failure did not show in any seed
	ClassUnknown Class = "unknown"              // the verdicts cannot decide
	ClassAgrees  Class = "agrees"               // an ordinary cell that agrees
	ClassSkipped Class = "skipped"              // the entry's runtime is missing
)

// classOf is the class of a cell with status s.
func classOf(c Cell, s Status) Class {
	switch s {
	case Agree:
		switch {
		case c.Known != "":
			return ClassKnown
		case c.Fixed != "":
			return ClassFixed
		}
		return ClassAgrees
	case Finding:
		return ClassFinding
	case Missed:
		return ClassMissed
	case Skipped:
		return ClassSkipped
	}
	return ClassUnknown
}

// Summary is the count the scoreboard starts with.
type Summary struct {
	// Libraries are the distinct upstream libraries (by repository), the
	// seed's own entries not counted.
	Libraries int `json:"libraries"`
	Entries   int `json:"entries"`
	// KnownListed are the distinct known: URLs of the cells that ran or
	// were skipped; KnownReproduced those shown by at least one cell.
	KnownListed     int `json:"known_bugs_listed"`
	KnownReproduced int `json:"known_bugs_reproduced"`
	// FixedTwins are the cells with fixed:, FixedClean those that agree.
	FixedTwins int `json:"fixed_twins"`
	FixedClean int `json:"fixed_twins_clean"`
	// NewFindings, Missed and Unknown count cells.
	NewFindings int `json:"new_findings"`
	Missed      int `json:"missed"`
	Unknown     int `json:"unknown"`
	// KnownURLs lists every known bug with whether it was reproduced.
	KnownURLs map[string]bool `json:"known_bugs"`
}

// Summarize counts the board.
func (b *Board) Summarize() Summary {
	s := Summary{Entries: len(b.Entries), KnownURLs: map[string]bool{}}
	libs := map[string]bool{}
	for _, e := range b.Entries {
		if repo := upstreamRepo(e.Upstream); !strings.HasSuffix(repo, "lockstorm/lockstorm") { // not the seed's own
			libs[repo] = true
		}
		for _, c := range e.Cells {
			cl := classOf(c.Cell, c.Status)
			if u := c.Cell.Known; u != "" {
				s.KnownURLs[u] = s.KnownURLs[u] || cl == ClassKnown
			}
			if c.Cell.Fixed != "" {
				s.FixedTwins++
				if cl == ClassFixed {
					s.FixedClean++
				}
			}
			switch cl {
			case ClassFinding:
				s.NewFindings++
			case ClassMissed:
				s.Missed++
			case ClassUnknown:
				s.Unknown++
			}
		}
	}
	s.Libraries = len(libs)
	s.KnownListed = len(s.KnownURLs)
	for _, ok := range s.KnownURLs {
		if ok {
			s.KnownReproduced++
		}
	}
	return s
}

// upstreamRepo is an upstream URL cut to its repository
// (github.com/redis/rueidis), so that entries of one library count once.
func upstreamRepo(u string) string {
	u = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://"), "/")
	parts := strings.Split(u, "/")
	if len(parts) > 3 {
		parts = parts[:3]
	}
	return strings.ToLower(strings.Join(parts, "/"))
}

// KnownCells keeps the cells that carry known: or fixed: (a known bug
// and its fixed twins), dropping entries left without a cell.
func KnownCells(entries []Entry) []Entry {
	var out []Entry
	for _, e := range entries {
		e.Cells = slices.DeleteFunc(slices.Clone(e.Cells), func(c Cell) bool { return c.Known == "" && c.Fixed == "" })
		if len(e.Cells) > 0 {
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Twin names the fixed twin of a known-bug cell (a fixed: cell of the
// same upstream repository and column) and what it showed; "" if none.
func (b *Board) Twin(e EntryOutcome, c CellOutcome) string {
	if c.Cell.Known == "" {
		return ""
	}
	for _, f := range b.Entries {
		if f.Name == e.Name || upstreamRepo(f.Upstream) != upstreamRepo(e.Upstream) {
			continue
		}
		for _, fc := range f.Cells {
			if fc.Cell.Fixed != "" && fc.Column == c.Column {
				return f.Name + " (" + f.Version + "): " + cellText(fc)
			}
		}
	}
	return ""
}
