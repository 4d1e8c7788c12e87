package main

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"os"
	"os/exec"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"sigs.k8s.io/yaml"
)

// Parsed is user data in a shape two renderings can be compared in: a MIME archive as its parts,
// each NodeConfig part as objects; Bottlerocket TOML as its settings; anything else as text.
type Parsed struct {
	Format   string         `json:"format"` // mime | toml | text
	Parts    []Part         `json:"parts,omitempty"`
	Settings map[string]any `json:"settings,omitempty"`
	// Bottlerocket is the TOML decoded into Karpenter's own settings struct (typed.go), strictly;
	// BottlerocketError says which keys it has no field for.
	Bottlerocket      map[string]any `json:"bottlerocket,omitempty"`
	BottlerocketError string         `json:"bottlerocketError,omitempty"`
	Text              string         `json:"text,omitempty"`
	Error             string         `json:"error,omitempty"`
}

type Part struct {
	ContentType string           `json:"contentType"`
	NodeConfigs []map[string]any `json:"nodeConfigs,omitempty"`
	// Decoded is each NodeConfig as nodeadm's API types read it (typed.go); DecodeErrors what its
	// strict decoder refused, one entry per document ("" where it decoded).
	Decoded      []map[string]any `json:"decoded,omitempty"`
	DecodeErrors []string         `json:"decodeErrors,omitempty"`
	Text         string           `json:"text,omitempty"`
}

const nodeConfigType = "application/node.eks.aws"

func parseUserData(s string) Parsed {
	trimmed := strings.TrimSpace(s)
	if strings.HasPrefix(trimmed, "MIME-Version:") || strings.HasPrefix(trimmed, "Content-Type:") {
		parts, err := mimeParts(trimmed)
		if err != nil {
			return Parsed{Format: "mime", Error: err.Error(), Text: s}
		}
		return Parsed{Format: "mime", Parts: parts}
	}
	settings := map[string]any{}
	if trimmed != "" && !strings.HasPrefix(trimmed, "<powershell>") && toml.Unmarshal([]byte(s), &settings) == nil {
		parsed := Parsed{Format: "toml", Settings: settings}
		if typed, err := decodeBottlerocket(s); err != nil {
			parsed.BottlerocketError = err.Error()
		} else {
			parsed.Bottlerocket = typed
		}
		return parsed
	}
	return Parsed{Format: "text", Text: trimmed}
}

func mimeParts(s string) ([]Part, error) {
	// Karpenter and nodeadm both accept either line ending; net/mail wants CRLF or LF consistently.
	msg, err := mail.ReadMessage(strings.NewReader(strings.ReplaceAll(s, "\r\n", "\n") + "\n"))
	if err != nil {
		return nil, fmt.Errorf("reading MIME headers: %w", err)
	}
	mediaType, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || !strings.HasPrefix(mediaType, "multipart/") {
		return nil, fmt.Errorf("content type %q is not multipart", msg.Header.Get("Content-Type"))
	}
	reader := multipart.NewReader(msg.Body, params["boundary"])
	parts := []Part{}
	for {
		p, err := reader.NextPart()
		if err == io.EOF {
			return parts, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading MIME part: %w", err)
		}
		body, err := io.ReadAll(p)
		if err != nil {
			return nil, err
		}
		ct, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		part := Part{ContentType: ct}
		if ct == nodeConfigType {
			for _, doc := range splitYAML(string(body)) {
				obj := map[string]any{}
				if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
					return nil, fmt.Errorf("NodeConfig part is not YAML: %w", err)
				}
				part.NodeConfigs = append(part.NodeConfigs, obj)
				decoded, err := decodeNodeConfig([]byte(doc))
				if err != nil {
					part.DecodeErrors = append(part.DecodeErrors, err.Error())
					decoded = map[string]any{}
				} else {
					part.DecodeErrors = append(part.DecodeErrors, "")
				}
				part.Decoded = append(part.Decoded, decoded)
			}
			if strings.Join(part.DecodeErrors, "") == "" {
				part.DecodeErrors = nil
			}
		} else {
			part.Text = strings.TrimSpace(string(body))
		}
		parts = append(parts, part)
	}
}

func splitYAML(s string) []string {
	docs := []string{}
	for _, d := range strings.Split("\n"+s, "\n---") {
		if strings.TrimSpace(stripComments(d)) != "" {
			docs = append(docs, d)
		}
	}
	return docs
}

func stripComments(s string) string {
	lines := []string{}
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

// NodeadmVerdict is what nodeadm's own config parser says of one user data.
type NodeadmVerdict struct {
	Valid  bool   `json:"valid"`
	Output string `json:"output"`
}

// nodeadmCheck runs `nodeadm config check` on user data served the way an instance sees it: from
// an instance metadata endpoint, so nodeadm takes the MIME path (every NodeConfig part decoded
// strictly and merged) exactly as on boot.
func nodeadmCheck(nodeadm string, userData string) NodeadmVerdict {
	imds := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPut && r.URL.Path == "/latest/api/token":
			w.Header().Set("X-Aws-Ec2-Metadata-Token-Ttl-Seconds", "21600")
			_, _ = w.Write([]byte("token"))
		case r.Method == http.MethodGet && r.URL.Path == "/latest/user-data":
			_, _ = w.Write([]byte(userData))
		default:
			http.NotFound(w, r)
		}
	}))
	defer imds.Close()
	cmd := exec.Command(nodeadm, "config", "check", "--config-source", "imds://user-data")
	cmd.Env = append(os.Environ(), "AWS_EC2_METADATA_SERVICE_ENDPOINT="+imds.URL)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return NodeadmVerdict{Valid: err == nil, Output: strings.TrimSpace(out.String())}
}
