// lfnlab-agent: the lab's small executor. It runs argv steps and supervised processes on behalf
// of the host, streams their output over the control channel, and tears everything down when
// asked, when the host disconnects, or when the host goes silent. All experiment logic lives on
// the host, in the plan it sends.
package main

import (
	"flag"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"
)

var version = "0.1.0"

const keyPath = "/sys/firmware/qemu_fw_cfg/by_name/opt/lfnlab/key/raw"

// findPort locates the virtio-serial port by the name qemu gave it; no udev in the image, so the
// /dev/virtio-ports symlinks do not exist.
func findPort(name string) string {
	matches, _ := filepath.Glob("/sys/class/virtio-ports/*/name")
	for _, m := range matches {
		if readTrim(m) == name {
			return "/dev/" + filepath.Base(filepath.Dir(m))
		}
	}
	return ""
}

func main() {
	portName := flag.String("port", "lfnlab.ctl", "virtio-serial port name")
	keyFile := flag.String("key", keyPath, "file holding the channel key (hex)")
	hostSocket := flag.String("host", "", "run on a lab host for a bump in the wire's external hosts: serve one session on this Unix socket")
	hostPrefix := flag.String("netns-prefix", "lfnw-", "with -host: the namespaces this agent may create and remove")
	flag.Parse()
	log.SetFlags(log.Lmicroseconds)
	log.SetPrefix("lfnlab-agent: ")
	start := time.Now()

	if os.Getpid() == 1 {
		runInit() // never returns: PID 1 mounts, loads modules, then supervises the agent child
	}
	if *hostSocket != "" {
		serveHost(*hostSocket, *keyFile, *hostPrefix, start)
		return
	}
	boot := loadBootReport()

	remote, err := loadRemoteConfig()
	if err != nil {
		log.Fatalf("%v", err)
	}
	if remote != nil {
		serveRemote(remote, boot, start)
		return
	}

	key := []byte(strings.TrimSpace(readTrim(*keyFile)))
	var port string
	for i := 0; i < 200 && (len(key) == 0 || port == ""); i++ {
		if len(key) == 0 {
			key = []byte(strings.TrimSpace(readTrim(*keyFile)))
		}
		port = findPort(*portName)
		if len(key) == 0 || port == "" {
			time.Sleep(50 * time.Millisecond)
		}
	}
	if len(key) < 32 {
		// Fail closed: without a key nothing could be authenticated.
		log.Fatalf("no channel key at %s", *keyFile)
	}
	if port == "" {
		log.Fatalf("no virtio-serial port named %s", *portName)
	}
	fh, err := os.OpenFile(port, os.O_RDWR, 0)
	if err != nil {
		log.Fatalf("open %s: %v", port, err)
	}
	boot.BootMs = time.Since(start).Milliseconds()
	a := &agent{key: key, w: newWriter(fh, key), procs: newRegistry(), boot: boot, version: version}
	log.Printf("ready on %s (agent %s, kernel %s)", port, version, kernelRelease())
	a.serve(fh)
}

// serveRemote is main for the image booted on a lab PC: the key and certificates come with the
// image (the ISO's second initramfs), the channel is TLS on the network (remote.go).
func serveRemote(c *remoteConfig, boot *bootReport, start time.Time) {
	key := []byte(strings.TrimSpace(readTrim(remoteDir + "/key")))
	if len(key) < 32 {
		log.Fatalf("no channel key at %s/key", remoteDir)
	}
	port, err := listenRemote(c)
	if err != nil {
		log.Fatalf("control channel: %v", err)
	}
	boot.BootMs = time.Since(start).Milliseconds()
	a := &agent{key: key, w: newWriter(port, key), procs: newRegistry(), boot: boot, version: version}
	log.Printf("ready on %s (agent %s, kernel %s)", c.Listen, version, kernelRelease())
	a.serve(port)
}
