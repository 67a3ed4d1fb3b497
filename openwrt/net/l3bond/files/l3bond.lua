-- l3bond: l3bondd's counters and state for prometheus-node-exporter-lua
-- (installed in /usr/lib/lua/prometheus-collectors/).  l3bondd serves no
-- HTTP: `l3bondctl metrics` asks the daemon's control socket and prints the
-- Prometheus text exposition, which this collector passes on as it is.
-- One l3bondd instance per box (the init script's rule): the first control
-- socket in /var/run/l3bond that answers is the one; none answering (the
-- daemon stopped) leaves the scrape without l3bond's metrics.

local function sockets()
	local list = {}
	local p = io.popen("ls /var/run/l3bond/*.sock 2>/dev/null")
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
		-- the socket path is the init script's (NAME.sock), quoted anyway
		local p = io.popen("/usr/sbin/l3bondctl -s '" ..
			path:gsub("'", "'\\''") .. "' metrics 2>/dev/null")
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
