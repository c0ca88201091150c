package lease

// Matcher names the lease a release, extend or renewal acts on, the rule
// every lease reader shares:
//
//   - the process's latest acquire ok on the key, when it carries the
//     op's token (an op without a token takes its token);
//   - else the lease this process matched before for the key and token
//     (a watchdog recording under a process of its own);
//   - else ByToken's (remembered for the process).
//
// L names a lease (an index, a pointer); its zero value is none. The
// process's own lease comes first: a lock may hand one token out twice.
type Matcher[L comparable] struct {
	// ByToken is the latest acquire ok or unknown of key with token.
	ByToken func(key, token string) (L, bool)
	cur     map[procKey]held[L] // (process, key) -> its latest acquire ok
	dogs    map[dogKey]L        // (process, key, token) -> the lease it matched before
}

type held[L comparable] struct {
	lease L
	token string
}

type procKey struct {
	p   int
	key string
}

type tokKey struct{ key, token string }

type dogKey struct {
	p          int
	key, token string
}

// NewMatcher is a Matcher over byToken (see ByToken).
func NewMatcher[L comparable](byToken func(key, token string) (L, bool)) *Matcher[L] {
	return &Matcher[L]{ByToken: byToken, cur: map[procKey]held[L]{}, dogs: map[dogKey]L{}}
}

// Acquired records l, acquired ok by process p on key with token, as the
// process's current lease there.
func (m *Matcher[L]) Acquired(p int, key, token string, l L) {
	m.cur[procKey{p, key}] = held[L]{l, token}
}

// Match is the lease an op of process p on key naming token acts on, and
// the op's token (the current lease's when empty).
func (m *Matcher[L]) Match(p int, key, token string) (l L, tok string, ok bool) {
	c, hasCur := m.cur[procKey{p, key}]
	if token == "" && hasCur {
		token = c.token
	}
	if hasCur && c.token == token {
		return c.lease, token, true
	}
	dk := dogKey{p, key, token}
	if l, ok := m.dogs[dk]; ok {
		return l, token, true
	}
	if l, ok = m.ByToken(key, token); ok {
		m.dogs[dk] = l
	}
	return l, token, ok
}

// Current is process p's current lease on key (its latest acquire ok).
func (m *Matcher[L]) Current(p int, key string) (L, bool) {
	c, ok := m.cur[procKey{p, key}]
	return c.lease, ok
}

// Drop forgets process p's current lease on key (a process that died
// never acts again).
func (m *Matcher[L]) Drop(p int, key string) { delete(m.cur, procKey{p, key}) }

// Forget drops every memory of l, process p's lease on key.
func (m *Matcher[L]) Forget(p int, key string, l L) {
	if c, ok := m.cur[procKey{p, key}]; ok && c.lease == l {
		delete(m.cur, procKey{p, key})
	}
	for dk, d := range m.dogs {
		if d == l {
			delete(m.dogs, dk)
		}
	}
}
