package shard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// diffJSON names the first top-level field of two JSON objects whose
// values differ, with both values: `seed 1 and 2`.
func diffJSON(a, b []byte) string {
	var ma, mb map[string]json.RawMessage
	if json.Unmarshal(a, &ma) != nil || json.Unmarshal(b, &mb) != nil {
		return "settings differ"
	}
	keys := map[string]bool{}
	for k := range ma {
		keys[k] = true
	}
	for k := range mb {
		keys[k] = true
	}
	var names []string
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !jsonEqual(ma[k], mb[k]) {
			return fmt.Sprintf("%s %s and %s", k, short(ma[k]), short(mb[k]))
		}
	}
	return "settings differ"
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y bytes.Buffer
	_ = json.Compact(&x, a)
	_ = json.Compact(&y, b)
	return bytes.Equal(x.Bytes(), y.Bytes())
}

// short is a JSON value cut to 60 characters ("none" when absent).
func short(v json.RawMessage) string {
	if len(v) == 0 {
		return "none"
	}
	var b bytes.Buffer
	_ = json.Compact(&b, v)
	s := b.String()
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}
