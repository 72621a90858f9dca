package local

import (
	"fmt"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/proofgate/proofgate/internal/keyseal"
	"github.com/proofgate/proofgate/internal/secret"
)

// sealer builds the key sealer from key_encryption_key (nil when unset),
// resolving {env.*}/{file.*} placeholders, and warns about a key written
// literally in the config.
func (l *Local) sealer(logger *zap.Logger) (*keyseal.Sealer, error) {
	if l.KeyEncryptionKey == "" {
		if len(l.PreviousKeyEncryptionKeys) > 0 {
			return nil, fmt.Errorf("previous_key_encryption_key needs a key_encryption_key")
		}
		return nil, nil
	}
	repl := caddy.NewReplacer()
	parse := func(name, v string) ([]byte, error) {
		secret.WarnLiteral(logger, name, v)
		resolved, err := repl.ReplaceOrErr(v, true, true)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		k, err := keyseal.ParseKey(resolved)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		return k, nil
	}
	current, err := parse("key_encryption_key", l.KeyEncryptionKey)
	if err != nil {
		return nil, err
	}
	var previous [][]byte
	for i, v := range l.PreviousKeyEncryptionKeys {
		k, err := parse(fmt.Sprintf("previous_key_encryption_key %d", i), v)
		if err != nil {
			return nil, err
		}
		previous = append(previous, k)
	}
	return keyseal.New(current, previous...)
}
