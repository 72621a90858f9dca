package names

import "testing"

func TestSchema(t *testing.T) {
	type parts struct{ issuer, name, version string }
	tests := []struct {
		id   string
		want parts
		ok   bool
	}{
		{"WgWxqztrNooG92RXvxSTWv:2:schema_name:1.0", parts{"WgWxqztrNooG92RXvxSTWv", "schema_name", "1.0"}, true},
		{"did:sov:WgWxqztrNooG92RXvxSTWv:2:employee:2.1", parts{"did:sov:WgWxqztrNooG92RXvxSTWv", "employee", "2.1"}, true},
		// The name is the part before the version: a colon in it moves
		// the "2" out of place.
		{"WgWxqztrNooG92RXvxSTWv:2:a:b:1.0", parts{}, false},
		{"WgWxqztrNooG92RXvxSTWv:2::1.0", parts{}, false},
		{"WgWxqztrNooG92RXvxSTWv:2:name:", parts{}, false},
		{"WgWxqztrNooG92RXvxSTWv:3:name:1.0", parts{}, false},
		{":2:name:1.0", parts{}, false},
		{"2:name:1.0", parts{}, false},
		{"did:web:issuer.example/schemas/employee", parts{}, false},
		{"", parts{}, false},
	}
	for _, tt := range tests {
		issuer, name, version, ok := Schema(tt.id)
		if ok != tt.ok || (parts{issuer, name, version}) != tt.want {
			t.Errorf("Schema(%q) = %q, %q, %q, %v; want %+v, %v", tt.id, issuer, name, version, ok, tt.want, tt.ok)
		}
	}
}

func TestCredDef(t *testing.T) {
	tests := []struct {
		id, issuer, rest string
		ok               bool
	}{
		{"Th7MpTaRZVRYnPiabds81Y:3:CL:12:default", "Th7MpTaRZVRYnPiabds81Y", "12:default", true},
		{"did:sov:Th7MpTaRZVRYnPiabds81Y:3:CL:12:default", "did:sov:Th7MpTaRZVRYnPiabds81Y", "12:default", true},
		// A schema id in place of the sequence number.
		{"Th7MpTaRZVRYnPiabds81Y:3:CL:L5u3AaDjGhV2AjL6mwAjLm:2:employee:1.0:tag", "Th7MpTaRZVRYnPiabds81Y", "L5u3AaDjGhV2AjL6mwAjLm:2:employee:1.0:tag", true},
		// The oldest ids have no tag.
		{"Th7MpTaRZVRYnPiabds81Y:3:CL:12", "Th7MpTaRZVRYnPiabds81Y", "12", true},
		{"Th7MpTaRZVRYnPiabds81Y:3:CL:", "", "", false},
		{":3:CL:12:default", "", "", false},
		{"Th7MpTaRZVRYnPiabds81Y:2:employee:1.0", "", "", false},
		{"did:web:issuer.example/creddefs/1", "", "", false},
	}
	for _, tt := range tests {
		issuer, rest, ok := CredDef(tt.id)
		if issuer != tt.issuer || rest != tt.rest || ok != tt.ok {
			t.Errorf("CredDef(%q) = %q, %q, %v; want %q, %q, %v", tt.id, issuer, rest, ok, tt.issuer, tt.rest, tt.ok)
		}
	}
}

func TestRevReg(t *testing.T) {
	const credDef = "Th7MpTaRZVRYnPiabds81Y:3:CL:12:default"
	tests := []struct {
		id, issuer, credDef string
		ok                  bool
	}{
		{"Th7MpTaRZVRYnPiabds81Y:4:" + credDef + ":CL_ACCUM:tag1", "Th7MpTaRZVRYnPiabds81Y", credDef, true},
		{"Th7MpTaRZVRYnPiabds81Y:4:" + credDef + ":CL_ACCUM:", "", "", false},
		{"Th7MpTaRZVRYnPiabds81Y:4:" + credDef + ":tag1", "", "", false},
		{"Th7MpTaRZVRYnPiabds81Y:4:nope:CL_ACCUM:tag1", "", "", false},
		{"Th7MpTaRZVRYnPiabds81Y:4:Th7MpTaRZVRYnPiabds81Y:3:CL:12:CL_ACCUM:tag1", "Th7MpTaRZVRYnPiabds81Y", "Th7MpTaRZVRYnPiabds81Y:3:CL:12", true},
		{":4:" + credDef + ":CL_ACCUM:tag1", "", "", false},
	}
	for _, tt := range tests {
		issuer, cd, ok := RevReg(tt.id)
		if issuer != tt.issuer || cd != tt.credDef || ok != tt.ok {
			t.Errorf("RevReg(%q) = %q, %q, %v; want %q, %q, %v", tt.id, issuer, cd, ok, tt.issuer, tt.credDef, tt.ok)
		}
	}
}

func TestAttr(t *testing.T) {
	for in, want := range map[string]string{"Favourite Colour": "favouritecolour", "age": "age", " A B ": "ab", "ÄGE": "äge"} {
		if got := Attr(in); got != want {
			t.Errorf("Attr(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAttrTag(t *testing.T) {
	tests := []struct {
		tag, name, kind string
		ok              bool
	}{
		{"attr::age::value", "age", "value", true},
		{"attr::Favourite Colour::marker", "Favourite Colour", "marker", true},
		{"attr::a::b::value", "a::b", "value", true},
		{"attr::age::other", "age", "other", false},
		{"attr::::value", "", "", false},
		{"attr::age", "", "", false},
		{"schema_id", "", "", false},
	}
	for _, tt := range tests {
		name, kind, ok := AttrTag(tt.tag)
		if ok != tt.ok || ok && (name != tt.name || kind != tt.kind) {
			t.Errorf("AttrTag(%q) = %q, %q, %v; want %q, %q, %v", tt.tag, name, kind, ok, tt.name, tt.kind, tt.ok)
		}
	}
}

// FuzzSchema: whatever Schema splits joins back to the id it was given.
func FuzzSchema(f *testing.F) {
	for _, s := range []string{"WgWxqztrNooG92RXvxSTWv:2:schema_name:1.0", "did:sov:x:2:n:1", ":2::", "a:2:b:c:d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		issuer, name, version, ok := Schema(id)
		if !ok {
			return
		}
		if issuer+":2:"+name+":"+version != id || name == "" || version == "" || issuer == "" {
			t.Fatalf("Schema(%q) = %q, %q, %q", id, issuer, name, version)
		}
	})
}
