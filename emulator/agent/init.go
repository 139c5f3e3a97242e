package main

// PID 1 duties when the agent is the image's /init: mount the pseudo file systems, load the
// modules the image lists, then run the agent proper as a child and reap every orphan.

import (
	"encoding/json"
	"log"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

const bootReportPath = "/run/lfnlab/boot.json"

type mountSpec struct{ src, target, fstype, data string }

var mounts = []mountSpec{
	{"proc", "/proc", "proc", ""},
	{"sysfs", "/sys", "sysfs", ""},
	{"devtmpfs", "/dev", "devtmpfs", "mode=0755"},
	{"devpts", "/dev/pts", "devpts", "gid=5,mode=620"},
	{"tmpfs", "/run", "tmpfs", "mode=0755"},
	{"tmpfs", "/tmp", "tmpfs", "mode=1777"},
	{"bpf", "/sys/fs/bpf", "bpf", "mode=0700"},
	{"tracefs", "/sys/kernel/tracing", "tracefs", ""},
}

func runInit() {
	// The kernel starts init with no PATH; every tool lives in /usr/bin (with /bin linked to it).
	os.Setenv("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
	report := &bootReport{Modules: []moduleLoad{}, Mounts: []string{}}
	for _, m := range mounts {
		os.MkdirAll(m.target, 0o755)
		if err := syscall.Mount(m.src, m.target, m.fstype, 0, m.data); err != nil {
			report.Mounts = append(report.Mounts, m.target+": "+err.Error())
		}
	}
	os.MkdirAll("/run/lfnlab", 0o700)
	os.MkdirAll("/run/netns", 0o755)
	syscall.Sethostname([]byte("lfnlab"))
	run("ip", "link", "set", "lo", "up")

	// The channel needs these two before anything else; the rest are stacks, qdiscs, classifiers.
	names := []string{"virtio_pci", "virtio_console", "qemu_fw_cfg"}
	if b, err := os.ReadFile("/etc/lfnlab/modules.list"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				names = append(names, strings.Fields(l)...)
			}
		}
	}
	// One modprobe for all is ~30x faster than one per module under TCG; only when it fails is
	// each module tried alone, to say which one failed and why.
	if out, err := exec.Command("modprobe", append([]string{"-a"}, names...)...).CombinedOutput(); err == nil {
		for _, n := range names {
			report.Modules = append(report.Modules, moduleLoad{Name: n, OK: true})
		}
	} else {
		log.Printf("modprobe -a: %v %s", err, out)
		for _, n := range names {
			out, err := exec.Command("modprobe", n).CombinedOutput()
			ml := moduleLoad{Name: n, OK: err == nil}
			if err != nil {
				ml.Error = strings.TrimSpace(string(out) + " " + err.Error())
				log.Printf("modprobe %s failed: %s", n, ml.Error)
			}
			report.Modules = append(report.Modules, ml)
		}
	}
	report.Softirq = prioritizeSoftirq()
	report.TcpMem = raiseTcpMem()
	// On a lab PC the control channel is the network: bring it up once, before the agent starts
	// (a restarted agent finds it up).
	if c, err := loadRemoteConfig(); err != nil {
		log.Printf("%v", err)
	} else if c != nil {
		for i := 0; i < 5; i++ {
			if err = configureNetwork(c); err == nil {
				break
			}
			log.Printf("network: %v (retrying)", err)
			time.Sleep(2 * time.Second)
		}
		if err != nil {
			report.Network = err.Error()
		}
	}
	if b, err := json.Marshal(report); err == nil {
		os.WriteFile(bootReportPath, b, 0o600)
	}
	superviseAgent()
}

func run(argv ...string) {
	if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
		log.Printf("%v: %v %s", argv, err, out)
	}
}

// superviseAgent keeps one agent child alive and reaps everything else reparented to PID 1.
func superviseAgent() {
	var child int
	for {
		if child == 0 {
			cmd := exec.Command("/proc/self/exe", os.Args[1:]...)
			cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
			if err := cmd.Start(); err != nil {
				log.Printf("cannot start agent: %v", err)
				time.Sleep(time.Second)
				continue
			}
			child = cmd.Process.Pid
		}
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if err != nil {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if pid == child {
			log.Printf("agent exited (%v); restarting", ws)
			child = 0
			time.Sleep(500 * time.Millisecond)
		}
	}
}

func loadBootReport() *bootReport {
	rep := &bootReport{Modules: []moduleLoad{}, Mounts: []string{}}
	if b, err := os.ReadFile(bootReportPath); err == nil {
		json.Unmarshal(b, rep)
	}
	return rep
}

func powerOff() {
	syscall.Sync()
	syscall.Reboot(syscall.LINUX_REBOOT_CMD_POWER_OFF)
}
