package shard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// keyDiff names the item counts when they differ, else the first
// top-level key field whose values differ, with both values: `seed 1 and 2`.
func keyDiff(a, b *Manifest) string {
	if a.Total != b.Total {
		return fmt.Sprintf("%d and %d items", a.Total, b.Total)
	}
	var ma, mb map[string]json.RawMessage
	if json.Unmarshal(a.Key, &ma) != nil || json.Unmarshal(b.Key, &mb) != nil {
		return "settings differ"
	}
	names := slices.AppendSeq(slices.Collect(maps.Keys(ma)), maps.Keys(mb))
	slices.Sort(names)
	for _, k := range slices.Compact(names) {
		if x, y := compact(ma[k]), compact(mb[k]); x != y {
			return fmt.Sprintf("%s %s and %s", k, short(x), short(y))
		}
	}
	return "settings differ"
}

// compact is JSON value v without insignificant spaces ("" when absent).
func compact(v json.RawMessage) string {
	var b bytes.Buffer
	_ = json.Compact(&b, v)
	return b.String()
}

// short is a compact JSON value cut to 60 characters ("none" when absent).
func short(s string) string {
	if s == "" {
		return "none"
	}
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}
