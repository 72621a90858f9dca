package ttlcache

import (
	"testing"
	"time"
)

// WithBudget: the values held cost at most the budget together; the
// oldest go first, one costing more than the budget alone is not kept,
// and what is dropped or expires gives its cost back.
func TestBudget(t *testing.T) {
	c := New[string](100, time.Minute, 0).WithBudget(10, func(v string) int64 { return int64(len(v)) })
	now := time.Unix(1000, 0)
	c.SetClock(func() time.Time { return now })
	c.Put("a", "aaaa")
	c.Put("b", "bbbb")
	c.Put("c", "cccc") // 12 > 10: a goes
	if _, ok := c.Peek("a"); ok {
		t.Error("the oldest value is still held past the budget")
	}
	for _, k := range []string{"b", "c"} {
		if _, ok := c.Peek(k); !ok {
			t.Errorf("%s dropped within the budget", k)
		}
	}
	c.Put("huge", "xxxxxxxxxxx") // 11 alone
	if _, ok := c.Peek("huge"); ok || c.Len() != 2 {
		t.Errorf("a value past the budget alone was kept (or evicted others): %d held", c.Len())
	}
	c.Delete("b")
	c.Put("d", "dddddd") // 4 + 6 = 10: fits once b's cost is given back
	if _, ok := c.Peek("c"); !ok {
		t.Error("c was evicted although Delete gave b's cost back")
	}
	now = now.Add(2 * time.Minute) // both expire
	c.Peek("c")
	c.Peek("d")
	c.Put("e", "eeeeeeeeee") // 10: fits once the expired ones are gone
	if _, ok := c.Peek("e"); !ok {
		t.Error("expired values' cost was not given back")
	}
}
