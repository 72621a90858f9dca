package proofgate

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/proofgate/proofgate/internal/auth/apikey"
)

func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "proofgate",
		Usage: "hash-key [--plaintext <key>]",
		Short: "Helpers for proofgate configurations",
		Long: `
proofgate hash-key prints the configuration form of an API key,
sha256:<hex>, for an api_key line, so the plaintext key need not sit in a
Caddyfile: api_key sha256:<hex> org <org_id>. Without --plaintext the key
is read from standard input (not echoed on a terminal).
`,
		CobraFunc: func(cmd *cobra.Command) {
			hash := &cobra.Command{
				Use:   "hash-key [--plaintext <key>]",
				Short: "Prints the sha256:<hex> form of an API key",
				Args:  cobra.NoArgs,
				RunE: func(c *cobra.Command, _ []string) error {
					key, _ := c.Flags().GetString("plaintext")
					out, err := hashKey(key, os.Stdin)
					if err != nil {
						return err
					}
					fmt.Fprintln(c.OutOrStdout(), out)
					return nil
				},
			}
			hash.Flags().StringP("plaintext", "p", "", "the key to hash (read from stdin when omitted)")
			cmd.AddCommand(hash)
		},
	})
}

// hashKey returns the digest form of key, reading it from in when empty.
func hashKey(key string, in *os.File) (string, error) {
	if key == "" {
		var err error
		key, err = readKey(in)
		if err != nil {
			return "", err
		}
	}
	if len(key) < apikey.MinKeyLength {
		return "", fmt.Errorf("key is too short (%d characters; at least %d)", len(key), apikey.MinKeyLength)
	}
	return apikey.Digest(key), nil
}

func readKey(in *os.File) (string, error) {
	fd := int(in.Fd())
	if term.IsTerminal(fd) {
		fmt.Fprint(os.Stderr, "API key: ")
		b, err := term.ReadPassword(fd)
		fmt.Fprintln(os.Stderr)
		if err != nil {
			return "", err
		}
		return string(b), nil
	}
	line, err := bufio.NewReader(io.LimitReader(in, 4096)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}
