package main

// Network mode, for the image booted on a lab PC (the ISO): the control channel is a TLS listener
// on the PC's network port instead of qemu's virtio-serial port. Both ends prove who they are (the
// host's client certificate and the agent's server certificate come from one lab CA) and every
// frame is still HMAC-signed with the lab's key. One host client at a time, as on virtio-serial.

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// remoteDir is written by `lfnlab lab iso` into the ISO's second initramfs.
const remoteDir = "/etc/lfnlab/remote"

type remoteConfig struct {
	Name string `json:"name"`
	// Listen is host:port; ":7600" listens on every address.
	Listen string `json:"listen"`
	// Interface is the port to configure; empty means the first ethernet port that has a link.
	Interface string `json:"interface"`
	// Address is an address with prefix (10.77.0.2/24) or "dhcp".
	Address string `json:"address"`
	Gateway string `json:"gateway"`
	// IssuedAt is when the certificates were made (RFC 3339): a PC whose clock is behind it would
	// find them not yet valid, so TLS counts time from there at the earliest.
	IssuedAt string `json:"issuedAt"`
}

func loadRemoteConfig() (*remoteConfig, error) {
	b, err := os.ReadFile(filepath.Join(remoteDir, "net.json"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var c remoteConfig
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s/net.json: %v", remoteDir, err)
	}
	if c.Listen == "" {
		c.Listen = ":7600"
	}
	return &c, nil
}

// loadNicDrivers loads the driver of every PCI device by its modalias: there is no udev in the
// image to do it, and loading every NIC driver on the off chance would probe hardware for nothing.
func loadNicDrivers() {
	// PCI first: virtio_pci then makes the virtio devices whose aliases name virtio_net.
	for _, bus := range []string{"pci", "virtio"} {
		aliases := []string{}
		matches, _ := filepath.Glob("/sys/bus/" + bus + "/devices/*/modalias")
		for _, m := range matches {
			if a := readTrim(m); a != "" {
				aliases = append(aliases, a)
			}
		}
		if len(aliases) > 0 {
			// -q: most devices (bridges, the disk controller) have no module in the image.
			exec.Command("modprobe", append([]string{"-a", "-q"}, aliases...)...).Run()
		}
	}
}

// ethernetPorts lists the network ports that are not loopback, in name order.
func ethernetPorts() []string {
	ports := []string{}
	entries, _ := os.ReadDir("/sys/class/net")
	for _, e := range entries {
		n := e.Name()
		if n == "lo" || strings.HasPrefix(n, "sit") || strings.HasPrefix(n, "ifb") {
			continue
		}
		if readTrim("/sys/class/net/"+n+"/type") == "1" { // ARPHRD_ETHER
			ports = append(ports, n)
		}
	}
	return ports
}

// configureNetwork brings the control port up with a static address or DHCP (busybox udhcpc).
func configureNetwork(c *remoteConfig) error {
	loadNicDrivers()
	port := c.Interface
	for i := 0; i < 100 && port == ""; i++ {
		if ports := ethernetPorts(); len(ports) > 0 {
			port = ports[0]
		} else {
			time.Sleep(100 * time.Millisecond)
		}
	}
	if port == "" {
		return fmt.Errorf("no ethernet port found (drivers loaded by PCI modalias)")
	}
	if out, err := exec.Command("ip", "link", "set", port, "up").CombinedOutput(); err != nil {
		return fmt.Errorf("ip link set %s up: %v %s", port, err, out)
	}
	if c.Address == "dhcp" {
		out, err := exec.Command("udhcpc", "-i", port, "-q", "-n", "-t", "20", "-T", "3",
			"-s", filepath.Join(remoteDir, "udhcpc.sh")).CombinedOutput()
		if err != nil {
			return fmt.Errorf("DHCP on %s: %v %s", port, err, out)
		}
		log.Printf("network: %s by DHCP", port)
		return nil
	}
	if out, err := exec.Command("ip", "addr", "replace", c.Address, "dev", port).CombinedOutput(); err != nil {
		return fmt.Errorf("ip addr replace %s dev %s: %v %s", c.Address, port, err, out)
	}
	if c.Gateway != "" {
		if out, err := exec.Command("ip", "route", "replace", "default", "via", c.Gateway).CombinedOutput(); err != nil {
			return fmt.Errorf("ip route replace default via %s: %v %s", c.Gateway, err, out)
		}
	}
	log.Printf("network: %s %s", port, c.Address)
	return nil
}

func remoteTLSConfig(c *remoteConfig) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(filepath.Join(remoteDir, "agent.pem"), filepath.Join(remoteDir, "agent.key"))
	if err != nil {
		return nil, fmt.Errorf("agent certificate: %v", err)
	}
	ca, err := os.ReadFile(filepath.Join(remoteDir, "ca.pem"))
	if err != nil {
		return nil, fmt.Errorf("lab CA: %v", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return nil, fmt.Errorf("lab CA: no certificate in %s/ca.pem", remoteDir)
	}
	issued, _ := time.Parse(time.RFC3339, c.IssuedAt)
	return &tls.Config{
		Certificates: []tls.Certificate{cert},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    pool,
		MinVersion:   tls.VersionTLS13,
		Time: func() time.Time {
			if now := time.Now(); now.After(issued) {
				return now
			}
			return issued.Add(time.Minute)
		},
	}, nil
}

// netPort presents one TLS connection at a time as the single port the session loop reads and
// the writer writes. A read on a closed connection returns EOF (as virtio-serial does when the
// host end goes away), and the next read waits for the next connection.
type netPort struct {
	mu      sync.Mutex
	conn    net.Conn
	pending bool
	ready   chan net.Conn
}

func newNetPort() *netPort { return &netPort{ready: make(chan net.Conn, 1)} }

func (p *netPort) Read(b []byte) (int, error) {
	p.mu.Lock()
	c := p.conn
	p.mu.Unlock()
	if c == nil {
		c = <-p.ready
		p.mu.Lock()
		p.conn, p.pending = c, false
		p.mu.Unlock()
	}
	n, err := c.Read(b)
	if err != nil {
		c.Close()
		p.mu.Lock()
		p.conn = nil
		p.mu.Unlock()
		return n, io.EOF
	}
	return n, nil
}

// Write never fails: the writer's buffer would keep the error for good, and frames written while
// no host is connected are dropped anyway (their session is over).
func (p *netPort) Write(b []byte) (int, error) {
	p.mu.Lock()
	c := p.conn
	p.mu.Unlock()
	if c != nil {
		c.SetWriteDeadline(time.Now().Add(30 * time.Second))
		c.Write(b)
	}
	return len(b), nil
}

// claim hands c to the session loop when no host holds the channel and none is about to.
func (p *netPort) claim(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conn != nil || p.pending {
		return false
	}
	p.pending = true
	p.ready <- c
	return true
}

// accept hands authenticated connections to the session loop, one at a time. A client that comes
// while another holds the channel waits, as qemu's socket makes it wait, for up to a minute (the
// previous session's teardown), and is then closed (the host reports the lab as busy).
func (p *netPort) accept(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			log.Printf("accept: %v", err)
			time.Sleep(100 * time.Millisecond)
			continue
		}
		go p.admit(c.(*tls.Conn))
	}
}

func (p *netPort) admit(c *tls.Conn) {
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if err := c.Handshake(); err != nil {
		log.Printf("refused %s: %v", c.RemoteAddr(), err)
		c.Close()
		return
	}
	c.SetDeadline(time.Time{})
	if tcp, ok := c.NetConn().(*net.TCPConn); ok {
		// A host that vanishes without closing (power, cable) is noticed by the watchdog too.
		tcp.SetKeepAlive(true)
		tcp.SetKeepAlivePeriod(5 * time.Second)
	}
	who := c.ConnectionState().PeerCertificates[0].Subject.CommonName
	claimed := p.claim(c)
	for start := time.Now(); !claimed && time.Since(start) < time.Minute; claimed = p.claim(c) {
		time.Sleep(100 * time.Millisecond)
	}
	if !claimed {
		log.Printf("refused %s (%s): another host holds the channel", c.RemoteAddr(), who)
		c.Close()
		return
	}
	log.Printf("host %s connected (%s)", c.RemoteAddr(), who)
}

// listenRemote starts the TLS listener; the returned port is what serve reads and writes.
func listenRemote(c *remoteConfig) (*netPort, error) {
	cfg, err := remoteTLSConfig(c)
	if err != nil {
		return nil, err
	}
	ln, err := tls.Listen("tcp", c.Listen, cfg)
	if err != nil {
		return nil, err
	}
	p := newNetPort()
	go p.accept(ln)
	log.Printf("listening on %s (TLS 1.3, client certificate required)", ln.Addr())
	return p, nil
}
