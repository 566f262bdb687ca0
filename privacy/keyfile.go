package privacy

// KeyFile describes a noise key file written by CreateKeyFile; it never
// holds the key.
type KeyFile struct {
	Path   string `json:"path"`
	Bits   int    `json:"bits"`
	Format string `json:"format"` // "hex": 64 hex digits and a newline
	Mode   string `json:"mode"`   // "0600"
}

// CreateKeyFile writes a new key from crypto/rand to path (GenerateKey,
// WriteKeyFile: never over an existing file) and describes the file.
func CreateKeyFile(path string) (*KeyFile, error) {
	k, err := GenerateKey()
	if err != nil {
		return nil, err
	}
	if err := WriteKeyFile(path, k); err != nil {
		return nil, err
	}
	return &KeyFile{Path: path, Bits: 8 * KeySize, Format: "hex", Mode: "0600"}, nil
}
