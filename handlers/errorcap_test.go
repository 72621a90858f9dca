package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/backend"
)

func TestWriteErrorCapsTheProblemList(t *testing.T) {
	for _, n := range []int{1, MaxMessages, MaxMessages + 1, 5000} {
		msgs := make([]string, n)
		for i := range msgs {
			msgs[i] = fmt.Sprintf("field%d: is wrong", i)
		}
		w := httptest.NewRecorder()
		writeError(w, 400, msgs)
		var body struct{ Message []string }
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
			t.Fatal(err)
		}
		if n <= MaxMessages {
			if len(body.Message) != n {
				t.Errorf("%d problems: %d listed", n, len(body.Message))
			}
			continue
		}
		if len(body.Message) != MaxMessages+1 || body.Message[MaxMessages-1] != msgs[MaxMessages-1] ||
			body.Message[MaxMessages] != fmt.Sprintf("… and %d more", n-MaxMessages) {
			t.Errorf("%d problems: %d listed, last %q", n, len(body.Message), body.Message[len(body.Message)-1])
		}
	}
}

func TestMailRefusalIsA400(t *testing.T) {
	refusal := mailRefusal(errors.New("mail: label must be one line of at most 200 bytes"))
	w := httptest.NewRecorder()
	writeBackendError(w, nil, zap.NewNop(), "", refusal)
	if w.Code != 400 || !strings.Contains(w.Body.String(), "emailId: the invitation e-mail cannot be sent") {
		t.Errorf("mail refusal: %d %s", w.Code, w.Body)
	}
	storage := fmt.Errorf("store: %w", backend.ErrUnavailable)
	if !errors.Is(mailRefusal(storage), backend.ErrUnavailable) {
		t.Error("a storage failure became a refusal")
	}
}
