package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster/local"
	"github.com/lockstorm/lockstorm/protocol"
)

// lockstorm client --lock single, driven over its stdin and stdout
// against a real redis-server: acquire, extend, release, and a garbage
// line logged on stderr and answered fail.
func TestClientSubcommandServesSingle(t *testing.T) {
	bin := binary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := local.Start(ctx, local.Config{Nodes: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	addr, err := c.Addr("c1", "n1")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bin, "client", "--lock", "single")
	cmd.Env = append(os.Environ(), protocol.EnvNodes+"="+addr, protocol.EnvSlot+"=0", protocol.EnvTTL+"=500")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	conn := protocol.NewConn(stdin, stdout)
	ask := func(req protocol.Request) protocol.Answer {
		t.Helper()
		if err := conn.Send(req); err != nil {
			t.Fatal(err)
		}
		l, got, err := conn.Recv()
		if err != nil || l.Answer == nil || got.ID != req.ID {
			t.Fatalf("request %+v: line %+v, answers %d, error %v", req, l, got.ID, err)
		}
		return *l.Answer
	}
	a := ask(protocol.Request{ID: 1, Op: protocol.OpAcquire, Key: "k", TTLMillis: 500})
	if a.Type != protocol.TypeOK || a.Token == "" || a.ValidityMillis <= 0 || a.ValidityMillis > 500 {
		t.Fatalf("acquire: %+v", a)
	}
	if e := ask(protocol.Request{ID: 2, Op: protocol.OpExtend, Key: "k", Token: a.Token}); e.Type != protocol.TypeOK {
		t.Fatalf("extend: %+v", e)
	}
	io.WriteString(stdin, `{"id":3,"op":"acquire"}`+"\n")
	// Written around conn, so conn reports the answer's id as unknown.
	if l, _, err := conn.Recv(); l.Answer == nil || l.Answer.Type != protocol.TypeFail || err == nil || !strings.Contains(err.Error(), "unknown request id 3") {
		t.Fatalf("garbage request 3: %+v %v, want fail", l, err)
	}
	if r := ask(protocol.Request{ID: 4, Op: protocol.OpRelease, Key: "k", Token: a.Token}); r.Type != protocol.TypeOK {
		t.Fatalf("release: %+v", r)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit at end of stdin: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "request 3: no key") {
		t.Errorf("stderr lacks the malformed request:\n%s", stderr.String())
	}
}

// Bad environment or an unknown lock: one line on stderr, exit 2.
func TestClientSubcommandBadEnv(t *testing.T) {
	bin := binary(t)
	cases := []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"client", "--lock", "single"}, "LOCKSTORM_NODES is not set"},
		{[]string{"LOCKSTORM_NODES=127.0.0.1:1", "LOCKSTORM_SLOT=0", "LOCKSTORM_TTL_MS=soon"}, []string{"client"}, "LOCKSTORM_TTL_MS"},
		{[]string{"LOCKSTORM_NODES=127.0.0.1:1", "LOCKSTORM_SLOT=0", "LOCKSTORM_TTL_MS=500"}, []string{"client", "--lock", "nope"}, `unknown lock "nope"`},
	}
	for _, tc := range cases {
		cmd := exec.Command(bin, tc.args...)
		cmd.Env = append(os.Environ(), tc.env...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 2 || !strings.Contains(stderr.String(), tc.want) || strings.Count(strings.TrimSpace(stderr.String()), "\n") > 0 {
			t.Errorf("%v %v: %v, stderr %q; want exit 2 and one line with %q", tc.env, tc.args, err, stderr.String(), tc.want)
		}
	}
}
