-- SPDX-License-Identifier: BSD-2-Clause
-- l3bond: l3bondd's counters and state for prometheus-node-exporter-lua
-- (installed in /usr/lib/lua/prometheus-collectors/).  l3bondd serves no
-- HTTP: `l3bondctl metrics` asks the daemon's control socket and prints the
-- Prometheus text exposition, which this collector passes on as it is.
-- One l3bondd instance per box (the init script's rule): the first control
-- socket in /var/run/l3bond that answers is the one; none answering (the
-- daemon stopped) leaves the scrape without l3bond's metrics.  The two
-- paths may be changed by the environment (tests/openwrt does).

local run_dir = os.getenv("L3BOND_RUN_DIR") or "/var/run/l3bond"
local l3bondctl = os.getenv("L3BONDCTL") or "/usr/sbin/l3bondctl"

-- a word for sh, in single quotes
local function q(s)
	return "'" .. s:gsub("'", "'\\''") .. "'"
end

local function sockets()
	local list = {}
	local p = io.popen("ls " .. q(run_dir) .. "/*.sock 2>/dev/null")
	if p then
		for path in p:lines() do
			list[#list + 1] = path
		end
		p:close()
	end
	return list
end

local function scrape()
	for _, path in ipairs(sockets()) do
		local p = io.popen(q(l3bondctl) .. " -s " .. q(path) ..
			" metrics 2>/dev/null")
		if p then
			local text = p:read("*a")
			p:close()
			if text and text:match("^# HELP ") then
				output(text)
				return
			end
		end
	end
end

return { scrape = scrape }
