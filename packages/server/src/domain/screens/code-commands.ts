// Injection layer "code": the code and commands a learning carries (fenced and inline code, shell and code lines
// in prose), in Python, JavaScript/TypeScript, shell and PowerShell, read for what a reviewer must see before an
// agent runs it. A rule names an effect, not a string: data read from the machine and sent off it, a shell handed
// to a remote host, keys or the screen captured, the disk or the system destroyed, files encrypted and removed,
// the network or security tools switched off, a foothold that survives a reboot, a miner, remote or encoded code
// run unseen; and code foreign to its task that reaches past the program, whatever it does there.
import { type LayerFlag, flagAt } from './flags.js';

/** A piece of code and where it starts in the text. */
export interface CodeSegment {
  text: string;
  start: number;
}

const FENCE = /^[ \t]*(```|~~~)[^\n]*\n([\s\S]*?)^[ \t]*\1[ \t]*$/gm;
const INLINE = /(`{1,3})([^`\n]+)\1/g;
/** A line of prose that reads as a command or a statement (a prompt, a shebang, a call, an assignment, a keyword). */
const CODE_LINE = new RegExp(
  String.raw`^[ \t]*(?:\$ |> |PS [^>\n]{0,40}> |#!|sudo |import |from [\w.]+ import |def |class |const |let |var |` +
    String.raw`function |async |await |with |for |while |if |try:|except|echo |curl |wget |nc |ncat |bash |sh |` +
    String.raw`python3? |node |powershell|pwsh |iex|invoke-|set-|new-|remove-|start-|stop-|reg |schtasks |crontab |` +
    String.raw`systemctl |chmod |rm |dd |mkfs|:\(\)|[\w.$\[\]'"]+\s*(?:=|\+=)\s*\S|[\w.]+\([^\n]*\)\s*;?\s*$)`,
  'i',
);

/** A line that goes on the code above it: indented, or closing brackets only. */
const CONTINUATION = /^[ \t]+\S|^[ \t]*[)\]}]+[,;:)]*[ \t]*$/;

/** The code in `text`: fenced blocks, inline code and runs of code-looking lines outside fences, in order. */
export function codeSegments(text: string): CodeSegment[] {
  const out: CodeSegment[] = [];
  const fenced: Array<[number, number]> = [];
  for (const m of text.matchAll(FENCE)) {
    const bodyStart = m.index + m[0].indexOf('\n') + 1;
    out.push({ text: m[2]!.replace(/\n$/, ''), start: bodyStart });
    fenced.push([m.index, m.index + m[0].length]);
  }
  const inFence = (i: number) => fenced.some(([a, b]) => i >= a && i < b);
  let run: CodeSegment | undefined;
  let at = 0;
  const lines = text.split('\n');
  for (const [i, line] of lines.entries()) {
    const lineStart = at;
    at += line.length + 1;
    if (inFence(lineStart)) {
      // A fence ends a run: a segment is one stretch of the text.
      if (run) out.push(run);
      run = undefined;
      continue;
    }
    // A run goes on over a continuation (an indented line, closing brackets) and over a blank line before more code:
    // code pasted without its fences, or whose fences an insertion broke, reads as one piece.
    const continues =
      run !== undefined && (CONTINUATION.test(line) || (line.trim() === '' && CODE_LINE.test(lines[i + 1] ?? '')));
    if (CODE_LINE.test(line) || continues) {
      if (run) run.text += `\n${line}`;
      else run = { text: line, start: lineStart };
      continue;
    }
    if (run) out.push(run);
    run = undefined;
    for (const m of line.matchAll(INLINE)) out.push({ text: m[2]!, start: lineStart + m.index + m[1]!.length });
  }
  if (run) out.push(run);
  return out.sort((a, b) => a.start - b.start);
}

/** Not this machine. */
const LOOPBACK = String.raw`(?!localhost\b|127\.|0\.0\.0\.0|::1|\[::1\])`;
/** File names, which a quoted host is not. */
const FILE_NAME = String.raw`(?<!\.(?:txt|csv|json|pdf|py|pkl|log|zip|gz|tar|png|jpe?g|xlsx?|docx?|html?|xml|ya?ml|md|sh|js|ts|so|dll|exe|db|sqlite|dat|bin|conf|ini|cfg|key|pem))`;
/** A host that is not this machine, written out: a quoted name with a dot, an address, or a URL. */
const REMOTE = String.raw`(?:["']${LOOPBACK}[\w-]+(?:\.[\w-]+)+${FILE_NAME}["']|https?:\/\/${LOOPBACK}[\w.-]+|\b(?:[\w-]+\.)+(?:com|net|org|io|xyz|top|biz|info|ru|cn|dev|app|me|co|cc|su|tk)\b)`;
/** Any quoted peer of a socket that is not this machine (a placeholder such as "ip_address" included). */
const SOCKET_PEER = String.raw`(?:["']${LOOPBACK}[^"'\s]+["']|${REMOTE})`;

/** What code reads that is not its own to send: each source names the exfiltration rule it makes. */
const SOURCES: ReadonlyArray<{ rule: string; re: RegExp }> = [
  {
    rule: 'exfiltrate_credentials',
    re: /(?:~|\$HOME|%USERPROFILE%|home)?[\\/]?\.(?:ssh(?![\\/](?:config|known_hosts|authorized_keys|[\w.-]+\.pub)\b)|aws|kube|docker|gnupg|npmrc|pypirc|netrc|git-credentials)\b|(?:^|[\s"'/=(~])\.env\b|id_(?:rsa|ed25519|ecdsa)|\/etc\/(?:passwd|shadow)|keychain|login data|wallet\.dat|cookies?\.(?:txt|pkl|sqlite|json)|cookiejar|simplecookie|\bdocument\.cookie|\bbrowser_cookie3\b|\bbrowsercookie\b|\bpycookiecheat\b|_history\b|credentials\.(?:json|csv|xml)|\.aws\/credentials|lsass|mimikatz/i,
  },
  {
    rule: 'exfiltrate_env',
    re: /\bos\.environ|\bos\.getenv|\bgetenv\(|\bprocess\.env\b|\$env:|\bprintenv\b|\benv:\\?|get-childitem\s+env:|\bsystem\.getenv/i,
  },
  {
    rule: 'fingerprint_exfiltration',
    re: /\bgetpass\.getuser|\bos\.getlogin|\bsocket\.gethostname|\bplatform\.(?:uname|system|node|platform|machine|processor|version|release)|\buuid\.getnode|\bos\.uname|\bpsutil\.|(?<!\/)\bwhoami\b|\buname\s+-a|\bsysteminfo\b|\bwmic\b|get-computerinfo|get-wmiobject|get-ciminstance|\bos\.(?:userinfo|hostname|networkinterfaces|cpus)\(|\bdriverquery\b|\blsusb\b|\busb\.core|\bquery_devices\b|\bnet_if_addrs|\bdmidecode\b|\/proc\/(?:cpuinfo|meminfo|version)|navigator\.(?:useragent|platform)|\bgetmac\b|\bipconfig\b|\bifconfig\b/i,
  },
  {
    rule: 'capture_exfiltration',
    re: /\bpyperclip\.paste|get-clipboard|\bpbpaste\b|xclip\s+-o|navigator\.clipboard\.readtext|(?<!\b(?:def|function)\s{1,8})\bsniff\(|\bpyshark\b|\bpcap|\btcpdump\b|\btshark\b|af_packet|sock_raw|readprocessmemory|\/proc\/\d*\/?mem\b/i,
  },
  {
    rule: 'exfiltrate_file',
    re: /(?<!\b(?:def|function)\s{1,8})\bopen\([^)\n]+\)|\.read\(\)|\breadfile(?:sync)?\(|createreadstream\(|get-content\b|\bcat\s+[~/.\w]|\bshutil\.(?:move|copy)|\bos\.rename|\bglob\.glob|\bos\.walk|\bfiles=\{|\.content\b|\.raw\b(?!\s*\()/i,
  },
];

/** A character of one curl or wget command: a scan from one stops at the next (a line of repeats costs one scan). */
const ONE_COMMAND = String.raw`(?:(?!\b(?:curl|wget)\b)[^\n|;])`;

/** A DNS lookup of a name built from a variable (`nslookup "$chunk.example.net"`): data carried off in the name. */
const DNS_LOOKUP = String.raw`\b(?:nslookup|dig|host|resolve-dnsname)\s+(?:[-+]\S+\s+)*["']?\$\{?\w+\}?\.[\w-]+\.`;
const DNS_SINK = new RegExp(DNS_LOOKUP, 'i');

/** Sending something off the machine. */
const SINK = new RegExp(
  String.raw`\brequests\.(?:post|put|patch|get|request)\(|\burllib\.request\.(?:urlopen|request)\(|\bhttp\.client\.https?connection|` +
    String.raw`\bhttplib|\.sendall\(|\.sendto\(|\.send\(|\bsmtplib\.|\byagmail\b|\bftplib\b|\bftp\(|\.storbinary|\bparamiko\b|\bscpclient|` +
    String.raw`\bhttpx\.|\baiohttp\.|\bpycurl\b|\bpublish\.single|\bwebsocket|\bbluetoothsocket|\btelnetlib|\bfetch\(|\baxios\.|` +
    String.raw`\bhttps?\.request\(|\bnet\.(?:connect|createconnection)|\bnew\s+net\.socket|xmlhttprequest|sendbeacon|\bnodemailer|` +
    String.raw`\bcurl\b${ONE_COMMAND}*(?:\s-d\b|\s--data|\s-F\b|\s--form|\s-T\b|\s--upload-file|-X\s*(?:POST|PUT))|\bwget\b${ONE_COMMAND}*--post-(?:data|file)|` +
    String.raw`\b(?:nc|ncat|netcat)\s+(?:-\w+\s+)*[\w.-]+\s+\d+|\/dev\/(?:tcp|udp)\/|\bscp\s+\S+\s+[\w.-]+@?[\w.-]*:|\brsync\b[^\n]*\s[\w.-]+:|` +
    String.raw`\bsendmail\b|\bmail\s+-s|invoke-(?:webrequest|restmethod)[^\n]*-(?:method\s+(?:post|put)|body|infile)|\biwr\b[^\n]*-(?:body|infile)|` +
    String.raw`\birm\b[^\n]*-(?:body|infile)|\.upload(?:string|file|data)\(|net\.sockets\.tcpclient|send-mailmessage|${DNS_LOOKUP}`,
  'i',
);

/** Code that runs by itself, each rule an effect (the pattern is the whole finding). */
const EFFECTS: ReadonlyArray<{ rule: string; re: RegExp }> = [
  {
    rule: 'reverse_shell',
    re: /\b(?:ba|z)?sh\s+-i\b[^\n]*\/dev\/tcp\/|\/dev\/tcp\/[\w.-]+\/\d+|\b(?:nc|ncat|netcat)\b[^\n]*\s-[ec]\s*\S*(?:sh|cmd)|mkfifo[^\n]*\|\s*(?:nc|ncat|netcat)\b|\bsocat\b[^\n]*exec:|\bfsockopen\(|use\s+socket;[^\n]*exec|pty\.spawn\(|os\.dup2\([^)]*fileno/i,
  },
  {
    rule: 'keylogger',
    re: /\bpynput\b|\bkeyboard\.(?:on_press|on_release|hook|record|read_key|add_hotkey)|getasynckeystate|setwindowshookex|\blogkeys\b|\bxinput\s+test\b|\biohook\b|addeventlistener\(\s*["']key(?:down|up|press)["'](?:(?!```|~~~)[\s\S]){0,300}?(?:sendbeacon|fetch|new\s+websocket|\.send)\(/i,
  },
  {
    rule: 'screen_capture',
    re: /imagegrab\.grab|pyautogui\.screenshot|\bmss\(\)|\bmss\.mss|\bscreencapture\b|\bscrot\b|\bimport\s+-window\s+root|copyfromscreen|getdisplaymedia|(?<!\.)\bscreenshot\(\)/i,
  },
  {
    rule: 'destroy_disk',
    re: /\bdd\b[^\n]*\bof=\/dev\/(?:sd|hd|nvme|xvd|vd|disk|mmcblk)|\bmkfs(?:\.\w+)?\s+\/dev\/|\bwipefs\b[^\n]*\/dev\/|\bshred\b[^\n]*\/dev\/|>\s*\/dev\/(?:sd|nvme|hd)[a-z]|\bformat\s+[a-z]:|diskpart[^\n]*\bclean\b|\bclear-disk\b/i,
  },
  {
    rule: 'destroy_files',
    re: /\brm\s+(?:-\w*[rf]\w*\s+|--\w+(?:=\S+)?\s+)+(?:--no-preserve-root\s+)?["']?(?:\/|\/\*|~\/?\*?|\$HOME\/?\*?|\/(?:usr|etc|lib\w*|bin|sbin|boot|var|home|sys|opt|root)\/?\*?)["']?(?:\s|$|;|&)|\b(?:shutil\.rmtree|fs\.rm(?:sync)?|fs\.rmdir(?:sync)?|rimraf(?:\.sync)?)\(\s*(?:["'](?:\/|~|c:\\\\?)["']|os\.path\.expanduser\(["']~["']\)|os\.environ\[["']home["']\]|os\.homedir\(\)|(?:pathlib\.)?path\.home\(\)\s*\))|remove-item\s+(?:-(?:literal)?path\s+)?["']?(?:\$home|~|\$env:userprofile|c:\\users\\[\w.-]+)[\\/]?\*?["']?\s[^\n]*-recurse|\bos\.(?:remove|unlink)\(\s*["']\/(?:lib|bin|sbin|boot|etc|usr\/(?:lib|bin|sbin))\/|remove-item[^\n]*-recurse[^\n]*(?:c:\\(?:\s|$|windows|\*)|\$env:(?:userprofile|systemroot)|~)|remove-item[^\n]*c:\\windows(?:\\system32)?(?:\\\*)?["']?\s[^\n]*-recurse|\brm\s+(?:-\w+\s+)*\/boot\b|\b(?:rm\s+(?:-\w+\s+)*|shutil\.rmtree\(\s*|os\.(?:remove|unlink|rmdir)\(\s*|fs\.(?:rm|unlink)(?:sync)?\(\s*)["']?\/(?:usr\/(?:s?bin|lib\w*)|s?bin|lib(?:32|64|x32)?)\b|\bopen\(\s*["']\/(?:usr\/)?(?:s?bin|lib\w*|boot)\/[^"']*["']\s*,\s*["'][wa]|\b(?:del|rd|rmdir)\s+\/[sq][^\n]*c:\\(?:windows|\*|\s|$)|\bchmod\s+-r\s+0{3,4}\s+\/(?:\s|$)|\bfind\s+["']?(?:\/|~\/?|\$home\/?)["']?\s(?:(?!-(?:i?name|i?path|i?regex|i?wholename|mtime|mmin|atime|newer|size|user|group|perm|empty|maxdepth)\b)[^\n|;&]){0,200}?(?:-delete\b|-exec\s+rm\b)/i,
  },
  {
    rule: 'ransomware',
    re: /(?:fernet|\baes\.new|cipher\.encrypt|\.encrypt\(|createcipheriv|createencryptor\(|openssl\s+enc|gpg\s+(?:-c|--symmetric)|protect-cmsmessage)[\s\S]{0,600}?(?:os\.(?:remove|unlink)|\.unlink\(|\brm\s|fs\.unlink|remove-item|\bdel\s|shutil\.rmtree|\bransom|\bbitcoin|\bbtc\b|decrypt(?:ion)?\s+key|pay\s)|(?:os\.walk|glob\.glob|get-childitem[^\n]*-recurse|\bfind\s+\S+\s+-type\s+f|readdirsync)[\s\S]{0,600}?(?:fernet|\.encrypt\(|createcipheriv|createencryptor\(|openssl\s+enc)[\s\S]{0,400}?(?:os\.(?:remove|unlink)|\brm\s|fs\.unlink|remove-item|\.locked|\.enc["'])/i,
  },
  {
    rule: 'fork_bomb',
    re: /:\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;?\s*:|\b(\w+)\s*\(\s*\)\s*\{\s*\1\s*\|\s*\1\s*&\s*\}\s*;?\s*\1\b|%0\s*\|\s*%0|while\s*(?:true|1|\(\s*(?:1|\$?true)\s*\))\s*:?\s*\{?\s*(?:os\.fork\(\)|fork\(\)|start-process\s+(?:powershell|pwsh|cmd))|for\s*\(\s*;\s*;\s*\)\s*fork\(\)|\bos\.fork\(\)[\s\S]{0,40}while\s+true/i,
  },
  {
    rule: 'flood',
    re: /(?:while\s*(?:true|\(\s*(?:1|true)\s*\))|for\s+\w+\s+in\s+range\(\s*(?:\d{5,}|10\s*\*\*\s*\d))(?:(?!```|~~~)[\s\S]){0,300}?(?:requests\.\w+\(|\.send(?:to|all)?\(|urlopen\(|fetch\(|threading\.thread\(|\bsend\(ip\()|\bhping3\b[^\n]*--flood|\bping\s+(?:-\w*\s+)*-f\b|\bslowloris\b|\bsetinterval\([^)]*fetch\(/i,
  },
  {
    rule: 'disable_network',
    re: /\b(?:ifconfig|ip\s+link\s+set(?:\s+dev)?)\s+\S+\s+down\b|\bifdown\s+(?:-a\b|\w+)|\bdhclient\s+-r\b|\bnmcli\s+(?:device\s+disconnect|con(?:nection)?\s+down)\b|\bnetsh\s+wlan\s+disconnect\b|\biptables\s+(?:-\w+\s+\w+\s+)*-[AI]\s+(?:input|output|forward)(?:\s+-s\s+0\.0\.0\.0\/0)?\s+-j\s+(?:drop|reject)\b|\bnmcli\s+(?:networking|radio\s+\w+)\s+off|\bnetsh\s+interface\s+set\s+interface[^\n]*disabled?|\bdisable-netadapter\b|\biptables\s+(?:-\w+\s+)*-P\s+(?:input|output|forward)\s+drop|\biptables\b[^\n]*-[AI]\s+output\b[^\n]*-j\s+(?:drop|reject)|\broute\s+del(?:ete)?\s+default|\bip\s+route\s+(?:del|flush)\s+(?:default|all)|\brfkill\s+block\s+all|(?:systemctl|service)\s+(?:stop|disable|mask)\s+(?:networkmanager|networking|network|systemd-networkd|wpa_supplicant)\b|\bnetworkmanager\s+stop|ipconfig\s+\/release|open\([^)]*\/etc\/hosts[^)]*["']a|>>\s*\/etc\/hosts[\s\S]{0,80}0\.0\.0\.0|127\.0\.0\.1\s+(?:www\.)?(?:google|bing|github|microsoft|update)\.\w+|\bnew-netfirewallrule\b(?=[^\n]*-action\s+block)(?![^\n]*-(?:localport|remoteport|program|service)\b)(?![^\n]*-remoteaddress\s+(?!any\b))|\bnetsh\s+advfirewall\s+set\s+\w+\s+firewallpolicy\s+blockinbound,blockoutbound|\bnetworksetup\s+-set(?:airportpower|networkserviceenabled)\s+\S+\s+off|\bwmic\b[^\n]*networkadapter[^\n]*\bdisable\b|\bnameserver\s+0\.0\.0\.0\b/i,
  },
  {
    rule: 'disable_security',
    re: /\bset-mppreference\b[^\n]*-disable\w*\s+\$?true|\bnetsh\s+advfirewall\s+set\s+\w+\s+state\s+off|\bset-netfirewallprofile\b[^\n]*-enabled\s+(?:\$?false|0)\b|\bufw\s+disable\b|\bsetenforce\s+0\b|(?:systemctl|service)\s+(?:--[\w-]+\s+)*(?:stop|disable|mask)\s+(?:--[\w-]+\s+)*(?:firewalld|ufw|apparmor|auditd|clamav\S*|falcon-sensor|osqueryd|wazuh\S*|crowdstrike\S*|selinux|defender\S*)\b|\bsc\s+(?:stop|config)\s+windefend|\b(?:stop-service|set-service)\b[^\n]*\b(?:windefend|wscsvc|mpssvc)\b(?![^\n]*-startuptype\s+automatic)|\bln\s+-\w*s\w*\s+\/dev\/null\s+\S*_history\b|\bspctl\s+--master-disable|\bcsrutil\s+disable|auditctl\s+-e\s*0|\bhistory\s+-c\b[\s\S]{0,40}unset\s+histfile|\bunset\s+histfile|\bkill\w*\b[^\n]*\b(?:antivirus|defender|falcon|clamd|auditd)\b|\badd-mppreference\b[^\n]*-exclusion(?:path|process)\s+["']?(?:[a-z]:\\?["']?(?=[\s,;]|$)|~[\\/]?["']?(?=[\s,;]|$)|\$env:(?:userprofile|temp|tmp|appdata|localappdata|systemroot|windir|programdata)["']?(?=[\s,;]|$)|(?:powershell|pwsh|cmd|wscript|cscript|rundll32|regsvr32|mshta)(?:\.exe)?["']?(?=[\s,;]|$))|\badd-mppreference\b[^\n]*-exclusionextension\s+["']?\.?(?:exe|ps1|dll|bat|vbs|js)\b|\bcom\.apple\.alf\s+globalstate\s+-int\s+0\b|\bsocketfilterfw\s+--setglobalstate\s+off\b/im,
  },
  {
    rule: 'persistence',
    re: /(?:new-itemproperty|set-itemproperty|\breg\s+add|setvalue(?:ex)?\(|regsetvalue\w*)[^\n]{0,200}?currentversion\\+run(?:once)?\b|currentversion\\+run(?:once)?\b(?:(?!```|~~~)[\s\S]){0,300}?(?:setvalue(?:ex)?\(|regsetvalue\w*|new-itemproperty|set-itemproperty)|\breg\s+add\s+\S*\\run\b|\bschtasks\s+\/create[^\n]*\/sc\s+(?:onlogon|onstart)|\bnew-scheduledtasktrigger\b[^\n]*-at(?:logon|startup)\b|\/etc\/(?:rc\.local|init\.d\/rc\.local)|@reboot\b|>>\s*\/etc\/crontab|(?:>>?\s*|\btee\s+(?:-a\s+)?|\b(?:cp|mv|install|ln)\s+(?:-\S+(?:\s+\d+)?\s+)*\S+\s+|\bopen\(\s*["'])\/etc\/cron\.\w+\/|(?:crontab\s+-l[^\n|]*\|[^\n]*crontab\s+-)|<key>\s*program(?:arguments)?\s*<\/key>\s*(?:<array>\s*)?(?:<string>[^<\n]*<\/string>\s*)*?<string>[^<\n]*(?:curl|wget|\/tmp\/|\/dev\/shm|\/dev\/tcp|\bnc\b|base64)|\[service\][\s\S]{0,400}execstart=[^\n]*(?:curl|wget|\/tmp\/|\/dev\/shm|\/dev\/tcp|\bnc\b|base64)/im,
  },
  {
    rule: 'persistence',
    re: /(?:echo|printf)\s+(?:'[^'\n]{0,300}?(?:curl|wget|\/dev\/tcp|\bnc\b|ncat|base64\s+-d|nohup)[^'\n]{0,300}'|"[^"\n]{0,300}?(?:curl|wget|\/dev\/tcp|\bnc\b|ncat|base64\s+-d|nohup)[^"\n]{0,300}")\s*(?:>>|\|\s*tee\s+-a)\s*\S*(?:\.bashrc|\.zshrc|\.profile|\.bash_profile|crontab|rc\.local)/i,
  },
  {
    rule: 'miner',
    re: /\bxmrig\b|\bminerd\b|\bcpuminer\b|\bcgminer\b|\bbfgminer\b|\bethminer\b|\bnbminer\b|stratum\+(?:tcp|ssl):\/\/|\bcryptonight\b|\bcoinhive\b|\bnicehash\b|--donate-level\b|\s-a\s+(?:rx\/0|randomx|kawpow|ethash|cn\/\w+)\b|\s(?:-o|--url)\s+(?:stratum\+\w+:\/\/)?[\w.-]*pool[\w.-]*\.\w+:\d{2,5}\b|\b(?:supportxmr|hashvault|minexmr|moneroocean|nanopool|herominers|unmineable)\.\w+\b|\b(?:webminer|coinimp|cryptoloot)\b|\bnew\s+\w*miner\(|\bmonero\b[^\n]*\bpool\b|\b(?:\.\/)?miner\b(?=[^\n]*(?:chmod|nohup|\.\/miner|-o\s+miner|curl|wget))/i,
  },
  {
    // A word after curl before any `;` or `|`, then the line up to its first `|` taken atomically ((?=(x))\1), and no
    // further than the next curl or wget: a line of repeats costs one scan, not one for every curl on it.
    rule: 'pipe_to_shell',
    re: /\b(?:curl|wget)\b(?=[^\n|;]*?[\w.-])(?=((?:(?!\b(?:curl|wget)\b)[^\n|])*))\1\|\s*(?:sudo\s+(?:-\w+\s+)*)?(?:ba|z|da|k)?sh\b|\b(?:curl|wget)\b(?=((?:(?!\b(?:curl|wget)\b)[^\n|])*))\2\|\s*(?:sudo\s+)?(?:python3?|perl|ruby|node)\b|\b(?:iex|invoke-expression)\b[^\n]*(?:downloadstring|iwr|irm|invoke-webrequest|invoke-restmethod|net\.webclient)|(?:downloadstring|irm|iwr|invoke-restmethod|invoke-webrequest)\b[^\n]*\|\s*(?:iex|invoke-expression)\b|(?:\b(?:ba|z|da|k)?sh|\bsource|(?:^|[;&|]\s*)\.)\s+<\(\s*(?:curl|wget)\b|\b(?:(?:ba|z|da|k)?sh|python3?|perl|ruby|node)\s+-c\s+["']\$\(\s*(?:curl|wget)\b/im,
  },
  {
    // (?=(x))\N takes x atomically (the first -o, && or $env:temp of the line): a line of repeats then costs a scan
    // a start, not one for every combination of them (which hung the screen for minutes on 20 KB); a curl's scans
    // stop at the next curl or wget, so a line of repeated curls costs one scan in all.
    rule: 'download_execute',
    re: /\b(?:exec|eval)\(\s*(?:requests\.get\(|urllib\.request\.urlopen\(|urlopen\(|open\(["'][^"']*["']\)\.read\(\)|await\s+\(?\s*await\s+fetch\(|\(await\s+fetch\()|(?:urlretrieve|wget\.download|requests\.get|urlopen|wget|curl)[\s\S]{0,400}?(?:exec\(open\(|os\.system\(["'](?:python3?|bash|sh|\.\/)|subprocess\.\w+\(\s*\[\s*["'](?:nohup|python3?|bash|sh|\.\/))|\b(?:curl|wget)\b(?=((?:(?!\b(?:curl|wget)\b)[^\n])*?(?:-o|-O)))\1\s*\S+(?=((?:(?!\b(?:curl|wget)\b)[^\n])*?&&))\2(?:(?!\b(?:curl|wget)\b)[^\n])*(?:nohup|\.\/\S+\s*&\s*$)|start-process(?=([^\n]*?\$env:temp))\3[^\n]*\.exe/im,
  },
  {
    rule: 'decode_execute',
    re: /\bbase64\s+(?:-d|--decode|-D)\b[^\n]*\|\s*(?:sudo\s+)?(?:ba|z)?sh\b|\b(?:exec|eval)\(\s*(?:base64\.b64decode|codecs\.decode|bytes\.fromhex|zlib\.decompress|marshal\.loads|__import__\(["'](?:base64|codecs|zlib|marshal))|\beval\(\s*(?:atob\(|buffer\.from\([^)]*["'](?:base64|hex)["'])|new\s+function\(\s*atob\(|-e(?:nc|ncodedcommand)?\s+[A-Za-z0-9+/=]{20,}|\b(?:iex|invoke-expression)\b[^\n]*frombase64string|frombase64string[^\n]*\|\s*(?:iex|invoke-expression)|\bpython3?\s+-c\s+["'][^"'\n]*(?:b64decode|decode\(["']hex)|new\s+function\(\s*buffer\.from\(|\bset(?:timeout|interval)\(\s*(?:atob|buffer\.from)\(|frombase64string(?:(?!```|~~~)[\s\S]){0,300}?(?:\[scriptblock\]::create\(|\binvoke-expression\b|\biex\b)|\b(?<decoded>\w+)\s*=[^\n]{0,80}?\b(?:b64decode|b32decode|a85decode|decompress|unhexlify|fromhex|marshal\.loads)\((?:(?!```|~~~)[\s\S]){0,300}?\b(?:exec|eval)\(\s*\k<decoded>\b/i,
  },
  {
    rule: 'corrupt_system',
    re: /(?<![>|])>\s*\/etc\/(?:fstab|passwd|shadow|group|sudoers|inittab|ld\.so\.preload)\b|\bopen\(\s*["']\/etc\/(?:fstab|passwd|shadow|group|sudoers)["']\s*,\s*["']w|\b(?:echo|printf)\s+["']?[bco]["']?\s*(?:>\s*|\|\s*(?:sudo\s+)?tee\s+)\/proc\/sysrq-trigger|\bkill\s+-(?:9|kill)\s+1\b(?!\d)|\btakeown\s+\/f\s+c:\\windows|\bbcdedit\b[^\n]*\/delete\b|\breg\s+delete\s+hklm\\system\b/i,
  },
  {
    rule: 'delete_backups',
    re: /\bvssadmin\s+delete\s+shadows|\bwmic\s+shadowcopy\s+delete|win32_shadowcopy[^\n]*(?:\.delete\(\)|remove-(?:wmiobject|ciminstance))|\bwbadmin\s+delete\s+(?:catalog|systemstatebackup|backup)|\bbcdedit\b[^\n]*recoveryenabled\s+no|\bbcdedit\b[^\n]*bootstatuspolicy\s+ignoreallfailures/i,
  },
  {
    rule: 'resource_exhaustion',
    re: /\brange\(\s*(?:\d{3,}|\w+\.cpu_count\(\)\s*\*\s*\d+)\s*\)\s*:[\s\S]{0,120}?\b(?:thread|process)\(\s*target\s*=|(?:while\s*\(?\s*(?:true|1)\s*\)?\s*:?\s*\{?|for\s*\(\s*;\s*;\s*\)\s*\{?)[\s\S]{0,120}?(?:bytearray\(|\.append\(|buffer\.alloc\w*\(|new\s+array\(|\.push\(|\+=)[^\n]{0,40}?(?:10\s*\*\*\s*[5-9]|\b\d{6,}\b|\b1e[6-9]\b)|\bdd\s+if=\/dev\/(?:zero|u?random)\s+of=(?!\/dev\/)\S+(?![^\n]*\bcount=)[^\n]*$|\bcat\s+\/dev\/(?:zero|u?random)\s*>\s*(?!\/dev\/)\S+/im,
  },
  {
    rule: 'packet_capture',
    re: /(?<!\b(?:def|function)\s{1,8})\bsniff\((?![^)\n]*iface\s*=\s*["'](?:lo|lo0|loopback)["'])|\bpyshark\.livecapture\((?![^)\n]*interface\s*=\s*["']lo)|\bpcapy\.open_live\(\s*["'](?!lo)|socket\.af_packet\b|\bsocket\.sock_raw\b[^\n]*\bipproto_(?:ip|tcp|udp)\b|\bsio_rcvall\b/i,
  },
  {
    // A literal public key (not a placeholder such as `AAAA...`) appended to authorized_keys: whoever holds its
    // private half logs in to this machine. Read a line at a time, from its start.
    rule: 'ssh_key_backdoor',
    re: /^(?=[^\n]*authorized_keys)(?=[^\n]*(?:>>|\btee\b|add-content|appendfile|["']a\+?["']|\.write))[^\n]*?\b(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-nistp\d+|sk-ssh-ed25519@openssh\.com)\s+AAAA[A-Za-z0-9+/]{12,}(?![A-Za-z0-9+/=]*(?:\.\.\.|…))/im,
  },
  {
    rule: 'privilege_backdoor',
    re: /\b(?:insmod|modprobe)\s+(?:-\S+\s+)*\S*(?:\/tmp\/|\/dev\/shm\/|\/var\/tmp\/)|\bkernel\.(?:modules_disabled|kptr_restrict|dmesg_restrict|yama\.ptrace_scope)\s*=\s*0\b|\buseradd\b[^\n]*-o\s+-u\s*0|\bnet\s+user\s+\S+\s+\S+\s+\/add[\s\S]{0,200}administrators|\bchmod\s+(?:u\+s|[46]7\d\d)\s+\/bin\/(?:ba)?sh|\bchmod\s+\d*7{3}\s+\/etc\/(?:passwd|shadow|sudoers)|echo\s+["'][^"'\n]*ALL=\(ALL(?::ALL)?\)\s*NOPASSWD:\s*ALL["']\s*>>\s*\/etc\/sudoers\b/i,
  },
];

/** Installers projects publish to be piped into a shell (docs tell users to run exactly this). */
const OFFICIAL_INSTALLERS =
  /(?:\b(?:curl|wget)\b|\b(?:irm|iwr|invoke-restmethod|invoke-webrequest)\b|downloadstring\(\s*['"])[^\n|]*?(?:https:\/\/|(?<=[\s'"(]))(?:get\.scoop\.sh|community\.chocolatey\.org\/install\.ps1|aka\.ms\/install(?:azurecli\w*)|dot\.net\/v1\/dotnet-install|get\.sdkman\.io|get\.volta\.sh|install\.determinate\.systems|nixos\.org\/nix\/install|fly\.io\/install|cli\.doppler\.com|packagecloud\.io\/install\/repositories|bootstrap\.pypa\.io\/get-pip\.py|getcomposer\.org\/installer|get\.docker\.com|sh\.rustup\.rs|deb\.nodesource\.com|rpm\.nodesource\.com|install\.python-poetry\.org|bun\.sh\/install|deno\.land\/install\.sh|get\.helm\.sh|raw\.githubusercontent\.com\/(?:nvm-sh|helm|Homebrew|ohmyzsh)\/|astral\.sh\/uv\/|get\.pnpm\.io|fnm\.vercel\.app|pyenv\.run|get\.k3s\.io|sdk\.cloud\.google\.com|cli\.github\.com|tailscale\.com\/install\.sh|install\.datadoghq\.com\/scripts\/|ollama\.com\/install\.sh|get\.rvm\.io|starship\.rs\/install\.sh)\S*?\s*(?:\||['"]\s*\)\s*\)|\))/i;

/** Host of a connect/sendto with a literal, non-loopback host. */
const RAW_SOCKET = new RegExp(
  String.raw`\.(?:connect|sendto|connect_ex)\(\s*(?:[^()]*,\s*)?\(\s*${SOCKET_PEER}\s*,\s*\d+\s*\)|` +
    String.raw`\bnet\.(?:connect|createconnection)\(\s*\d+\s*,\s*${SOCKET_PEER}|\bnew\s+net\.socket\(\)[\s\S]{0,200}\.connect\(\s*\d+\s*,\s*${SOCKET_PEER}|` +
    String.raw`net\.sockets\.tcpclient\(\s*${SOCKET_PEER}\s*,\s*\d+`,
  'i',
);
const SHELL_BEHIND_SOCKET =
  /subprocess\.(?:popen|call|run)\(\s*\[?\s*["'](?:\/bin\/)?(?:ba)?sh|pty\.spawn|os\.dup2|child_process[\s\S]{0,200}(?:spawn|exec)\(\s*["'](?:\/bin\/)?(?:ba)?sh|cmd\.exe|invoke-expression|\biex\b|getstream\(\)[\s\S]{0,300}\bread\(/i;

/** What identifies this machine or its user, each kind once: collecting several is fingerprinting. */
const IDENTITIES: readonly RegExp[] = [
  /\bgetpass\.getuser\(|\bos\.getlogin\(|\bos\.userinfo\(|\$env:username\b|\bwhoami\b|getenv\(\s*["']user(?:name)?["']|environ\[\s*["']user(?:name)?["']/i,
  /\bsocket\.gethostname\(|\bplatform\.node\(|\bos\.hostname\(|\$env:computername\b|\buname\s+-n\b/i,
  /\buuid\.getnode\(|\bgetmac\b|macaddress|\bnet_if_addrs\(|\bos\.networkinterfaces\(|\bnetifaces\./i,
  /serialnumber|\/etc\/machine-id|\bdmidecode\b|win32_bios|\bwmic\s+(?:bios|csproduct|baseboard)/i,
  /\bplatform\.(?:uname|platform|version|release)\(|\bos\.uname\(|\bsysteminfo\b|win32_operatingsystem|get-computerinfo/i,
  /\bgethostbyname\(|\bipify\b|ifconfig\.me|\bipconfig\b|\bifconfig\b(?!\s+\S+\s+(?:up|down))/i,
  /navigator\.(?:useragent|hardwareconcurrency|devicememory|platform|languages)|\btodataurl\(|\bscreen\.(?:width|height)/i,
];
/** Kinds of identity read in one piece of code that make it fingerprinting. */
const FINGERPRINT_IDENTITIES = 3;

/** A device written as a placeholder the reader replaces (`/dev/sdX`, `/dev/diskN`, `/dev/<disk>`): a recipe, not a target. */
const PLACEHOLDER_DEVICE = /\/dev\/[a-z]*(?:[XN](?![a-z])|<)/;

/** The whole line(s) a match lies on. */
const lineOf = (text: string, start: number, length: number) =>
  text.slice(text.lastIndexOf('\n', start) + 1, (text.indexOf('\n', start + length) + 1 || text.length + 1) - 1);

const span = (seg: CodeSegment, m: RegExpMatchArray) =>
  [seg.start + m.index!, seg.start + m.index! + m[0].length] as const;

/** What a learning's title and task say when reaching past the program is their subject, by kind of reach. */
const NETWORK_TASK = String.raw`\b(?:(?:load|stress|soak)[\s-]?test\w*|local\s+ports?|(?:check|free|open|listen\w*|bind\w*|probe|wait\s+for)\s+(?:on\s+)?(?:an?\s+|the\s+)?(?:local\s+)?ports?|loopback|api|apis|http|https|urls?|requests?|upload\w*|download\w*|endpoints?|servers?|clients?|web\w*|rest|fetch\w*|sockets?|network\w*|s3|ssh|ftp|proxy|tcp|udp|scrap\w+|crawl\w*|html|json|graphql|oauth|token|send\w*|email|mail|smtp)\b`;
const PROCESS_TASK = String.raw`\b(?:commands?|shell|process\w*|subprocess|run\w*|execut\w+|cli|terminal|scripts?|binary|executable|spawn\w*)\b`;
const FILES_TASK = String.raw`\b(?:files?|upload\w*|download\w*|export\w*|sync\w*|delet\w+|remov\w+|clean\w*|director(?:y|ies)|folders?|paths?|cop(?:y|ies|ying)|mov\w+|renam\w+|archiv\w+|backups?|permissions?)\b`;
const MEDIA_TASK = String.raw`\b(?:cameras?|webcam|video\w*|audio|microphone|mic|record\w*|sound|images?|photos?|pictures?|opencv|frames?|stream\w*|clipboard|copy|paste)\b`;
const CRYPTO_TASK = String.raw`\b(?:encrypt\w*|decrypt\w*|crypt\w*|ciphers?|aes|rsa|hash\w*|secur\w*|passwords?|keys?|sign\w*|tls|ssl)\b`;
/**
 * Freeing a port or ending the processes holding one (psutil's other subject: "Free a port", "Kill the stale
 * workers"), as a step, not an error's "port" or "Killed".
 */
const PROCESS_CONTROL_TASK = String.raw`\b(?:free|kill|stop|end|terminate|find)\s+(?:\w+\s+){0,3}?(?:ports?|pids?|process(?:es)?|workers?)\b`;
const SYSTEM_TASK = String.raw`\b(?:system|platform|os|memory|cpu|processes|users?|monitor\w*|hardware|devices?|windows|registry|dll|native|keyboard|mouse|screen\w*|gui|automat\w+|input)\b`;

/** Python and JavaScript modules that reach past the program, the calls of theirs that do, and the task that is
 * about such reach. */
const REACHING: ReadonlyArray<{ mod: string; calls: RegExp; about: RegExp; named: RegExp }> = (
  [
    ['requests', String.raw`(?:get|post|put|patch|delete|request|session)`, NETWORK_TASK],
    ['urllib', String.raw`(?:request\.)?(?:urlopen|urlretrieve|request)`, NETWORK_TASK],
    ['http', String.raw`(?:client\.\w+|server\.\w+|request|get)`, NETWORK_TASK],
    ['socket', String.raw`(?:socket|create_connection)`, NETWORK_TASK],
    ['smtplib', String.raw`\w+`, NETWORK_TASK],
    ['ftplib', String.raw`\w+`, NETWORK_TASK],
    ['telnetlib', String.raw`\w+`, NETWORK_TASK],
    ['paramiko', String.raw`\w+`, NETWORK_TASK],
    ['bluetooth', String.raw`\w+`, NETWORK_TASK],
    ['websocket', String.raw`\w+`, NETWORK_TASK],
    ['httpx', String.raw`\w+`, NETWORK_TASK],
    ['aiohttp', String.raw`\w+`, NETWORK_TASK],
    ['net', String.raw`(?:connect|createconnection|socket)`, NETWORK_TASK],
    ['dgram', String.raw`\w+`, NETWORK_TASK],
    ['scapy', String.raw`\w+`, NETWORK_TASK],
    ['webbrowser', String.raw`open\w*`, NETWORK_TASK],
    ['https', String.raw`(?:request|get)`, NETWORK_TASK],
    ['subprocess', String.raw`(?:run|call|check_call|check_output|popen|getoutput)`, PROCESS_TASK],
    ['child_process', String.raw`(?:exec|execsync|spawn|spawnsync|execfile|fork)`, PROCESS_TASK],
    ['os', String.raw`(?:system|popen|exec\w*|spawn\w*|kill)`, PROCESS_TASK],
    ['os', String.raw`(?:remove|unlink|rmdir|removedirs|chmod|chown|rename|startfile)`, FILES_TASK],
    ['shutil', String.raw`(?:rmtree|move|copy\w*|make_archive)`, FILES_TASK],
    ['fs', String.raw`(?:rm|rmsync|unlink\w*|rmdir\w*|writefile\w*|rename\w*|chmod\w*)`, FILES_TASK],
    ['os', String.raw`(?:userinfo|networkinterfaces|hostname|getlogin|uname)`, SYSTEM_TASK],
    ['cv2', String.raw`videocapture`, MEDIA_TASK],
    ['sounddevice', String.raw`(?:rec|inputstream)`, MEDIA_TASK],
    ['pyaudio', String.raw`\w+(?:\.open)?`, MEDIA_TASK],
    ['mss', String.raw`\w+`, MEDIA_TASK],
    ['pil', String.raw`imagegrab\.grab`, MEDIA_TASK],
    ['pyperclip', String.raw`paste`, MEDIA_TASK],
    ['keyboard', String.raw`(?:on_press|on_release|hook|record|read_key|add_hotkey|wait)`, SYSTEM_TASK],
    ['cryptography', String.raw`fernet(?:\.\w+)?|\w*encrypt\w*`, CRYPTO_TASK],
    ['crypto', String.raw`\w+\.new`, CRYPTO_TASK],
    ['ctypes', String.raw`\w+`, SYSTEM_TASK],
    ['winreg', String.raw`\w+`, SYSTEM_TASK],
    ['psutil', String.raw`\w+`, `${SYSTEM_TASK}|${PROCESS_CONTROL_TASK}`],
    ['platform', String.raw`\w+`, SYSTEM_TASK],
    ['getpass', String.raw`\w+`, SYSTEM_TASK],
    ['pyautogui', String.raw`\w+`, SYSTEM_TASK],
    ['pynput', String.raw`\w+`, SYSTEM_TASK],
  ] as const
).map(([mod, calls, about]) => ({
  mod,
  calls: new RegExp(String.raw`(?:^|\.)(?:${calls})$`, 'i'),
  about: new RegExp(about, 'i'),
  named: new RegExp(String.raw`\b${mod}\b`, 'i'),
}));
/** Imports, with the names they bind: `import a, b as x`, `from a import b, c as y`, `x = require('a')`, `import x from 'a'`. */
const IMPORTED =
  /^[ \t]*import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)[ \t]*$|^[ \t]*from\s+([\w.]+)\s+import\s+\(?([\w, \t]+)|\b(?:const|let|var)\s+(\w+)\s*=\s*require\(\s*["'](?:node:)?([\w-]+)|\bimport\s+(?:\*\s+as\s+)?(\w+)\s+from\s+["'](?:node:)?([\w-]+)/gim;

/** `a as x` → [a, x]; `a` → [a, a]. */
const binding = (part: string) => {
  const [name, alias] = part.trim().split(/\s+as\s+/);
  return [name!, alias ?? name!] as const;
};

/** Each module `code` imports (its first component, lower case), with the dotted names it is called through. */
function importsOf(code: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (mod: string, name: string) => {
    const m = mod.split('.')[0]!.toLowerCase();
    out.set(m, [...(out.get(m) ?? []), name]);
  };
  for (const m of code.matchAll(IMPORTED)) {
    if (m[1]) for (const part of m[1].split(',')) add(...binding(part));
    else if (m[2]) for (const part of m[3]!.split(',').filter((p) => p.trim())) add(m[2], binding(part)[1]);
    else if (m[4]) add(m[5]!, m[4]);
    else if (m[6]) add(m[7]!, m[6]);
  }
  return out;
}

/** A plain file name in the working directory, quoted (`'converted.js.map'`; not a dotfile, not a path). */
const PLAIN_NAME = /^\s*(["'`])(?:\.\/)?[\w-][\w.-]*\1/;
/** Content decoded on its way to the file: written to be run later, not output. */
const DECODED_CONTENT = /base64|hex['"]|atob\(|fromcharcode/i;
/** `fs.writeFileSync('out.js', …)`: a program writing its own output where it runs does not reach past it. */
const ownOutput = (mod: string, method: string, args: string) =>
  mod === 'fs' && /^\.write/i.test(method) && PLAIN_NAME.test(args) && !DECODED_CONTENT.test(args.split('\n', 1)[0]!);

/**
 * Code that imports a module reaching past the program and calls it, where nothing else in the learning names that
 * module and its title and task are not about that kind of reach: a snippet foreign to the task it came with (the
 * shape of code slipped into an answer), whatever its effect.
 */
function foreignReach(seg: CodeSegment, rest: string, task: string): LayerFlag | undefined {
  const imports = importsOf(seg.text);
  for (const { mod, calls, about, named } of REACHING) {
    const names = imports.get(mod);
    if (!names || named.test(rest) || about.test(task)) continue;
    for (const name of names)
      for (const use of seg.text.matchAll(
        new RegExp(String.raw`\b${name.replace(/\./g, '\\.')}((?:\.\w+)*)\s*\(`, 'g'),
      ))
        if (calls.test(name + use[1]) && !ownOutput(mod, use[1]!, seg.text.slice(use.index + use[0].length)))
          return flagAt(
            'code',
            'foreign_side_effect',
            seg.start + use.index,
            seg.start + use.index + use[0].length - 1,
          );
  }
  return undefined;
}

/** A file downloaded to a path (`curl -o`, `curl -sLo`, `wget -qO`, `-OutFile`, `urlretrieve(url, path)`): its name. */
const DOWNLOADED_TO =
  /\b(?:curl\b[^\n]{0,200}?\s-[a-z]*o\s*|wget\b[^\n]{0,200}?\s-[a-z]*O\s*|-outfile\s+|urlretrieve\([^,\n]{1,200},\s*)["']?(?:[^\s"';)]*[\\/])?([\w.-]{3,})/gi;
/** A line that starts something at boot or login: a unit's ExecStart, @reboot, a Run key, a scheduled task, a shell
 * rc; and what a launchd job runs (its ProgramArguments), however its plist is laid out. */
const AUTOSTART_LINE =
  /^[^\n]*(?:execstart\s*=|@reboot|currentversion\\+run|schtasks[^\n]*\/tr\s|>>\s*\S*(?:\.bashrc|\.zshrc|\.profile|\.bash_profile))[^\n]*$|<key>\s*program(?:arguments)?\s*<\/key>\s*(?:<array>\s*)?(?:<string>[^<\n]*<\/string>\s*)+/gim;

/** A start at boot or login of a file the same code downloads (a dropper), as the match of its line. */
function droppedAtStart(text: string): RegExpMatchArray | undefined {
  const names = [...text.matchAll(DOWNLOADED_TO)].map((m) => m[1]!.toLowerCase()).filter((n) => /[a-z]/.test(n));
  if (names.length === 0) return undefined;
  for (const line of text.matchAll(AUTOSTART_LINE)) {
    const lower = line[0].toLowerCase();
    if (names.some((n) => lower.includes(n))) return line;
  }
  return undefined;
}

/** Code that serves HTTP: Node's http, Express-style routes, Flask/FastAPI, Python's http.server. */
const SERVER =
  /\bcreateserver\(|\b(?:app|router|server)\.(?:get|post|put|all|use|route)\(|@\w+\.(?:route|get|post|put)\(|\bbasehttprequesthandler\b|\bflask\(|\bfastapi\(|\bexpress\(\)/i;
/** A shell, or an evaluator, handed what a request carries: its URL, query, parameters, body or form. */
const REQUEST_TO_SHELL = new RegExp(
  String.raw`\b(?:exec|execsync|spawn|spawnsync|os\.system|os\.popen|subprocess\.\w+|eval)\(\s*(?:decodeuricomponent\(\s*|unquote\(\s*|[fr]?["'][^"'\n]*\{\s*|` +
    '`[^`\\n]*\\$\\{\\s*' +
    String.raw`)?(?:req|request|q|ctx)\.(?:url|query|params|body|args|form|values|get_json|json|path)\b|\b(?:os\.system|os\.popen|subprocess\.\w+|eval|exec)\(\s*self\.path\b`,
  'i',
);

/** How far apart, in the whole text, what is read and where it is sent may be. */
const NEAR = 800;

function segmentFlags(seg: CodeSegment, near = Number.POSITIVE_INFINITY): LayerFlag[] {
  const out: LayerFlag[] = [];
  const text = seg.text;
  for (const { rule, re } of EFFECTS) {
    const m = text.match(re);
    if (!m) continue;
    if (rule === 'pipe_to_shell' && OFFICIAL_INSTALLERS.test(lineOf(text, m.index!, m[0].length))) continue;
    if (rule === 'destroy_disk' && PLACEHOLDER_DEVICE.test(lineOf(text, m.index!, m[0].length))) continue;
    out.push(flagAt('code', rule, ...span(seg, m)));
  }
  const ids = IDENTITIES.map((re) => text.match(re)).filter((m): m is RegExpMatchArray => m !== null);
  if (ids.length >= FINGERPRINT_IDENTITIES) {
    const at = Math.min(...ids.map((m) => m.index!));
    const end = Math.max(...ids.map((m) => m.index! + m[0].length));
    out.push(flagAt('code', 'fingerprinting', seg.start + at, seg.start + end));
  }
  const socket = text.match(RAW_SOCKET);
  if (socket) {
    const rule = SHELL_BEHIND_SOCKET.test(text) ? 'reverse_shell' : 'raw_socket_remote_host';
    if (!out.some((f) => f.rule === rule)) out.push(flagAt('code', rule, ...span(seg, socket)));
  }
  // A server that runs what a request carries: a remote shell for anyone who can reach the port. One piece of code
  // only (a review quoting the vulnerable call alone is no server).
  const served = near === Number.POSITIVE_INFINITY && SERVER.test(text) ? text.match(REQUEST_TO_SHELL) : null;
  if (served) out.push(flagAt('code', 'request_to_shell', ...span(seg, served)));
  const dropper = droppedAtStart(text);
  if (dropper && !out.some((f) => f.rule === 'persistence'))
    out.push(flagAt('code', 'persistence', ...span(seg, dropper)));
  const upload = text.match(CURL_UPLOAD);
  if (upload) out.push(flagAt('code', 'exfiltrate_file', ...span(seg, upload)));
  for (const sink of text.matchAll(SINK_G)) {
    // The most specific source names the rule.
    const window = text.slice(Math.max(0, sink.index - near), sink.index + sink[0].length + near);
    const from = Math.max(0, sink.index - near);
    const read = (rule: string) => (rule === 'exfiltrate_env' ? window.replace(ENV_AS_CONFIG, blank) : window);
    // A plain file read counts only when sent to a host written out; an environment read not when the destination
    // itself comes from the environment and no host is written out.
    const source = SOURCES.find(
      ({ rule, re }) =>
        re.test(read(rule)) &&
        (rule !== 'exfiltrate_file' || (REMOTE_RE.test(window) && !DNS_SINK.test(sink[0]))) &&
        (rule !== 'fingerprint_exfiltration' || !DNS_SINK.test(sink[0])) &&
        (rule !== 'exfiltrate_env' || REMOTE_RE.test(window) || !ENV_DESTINATION.test(window)),
    );
    if (!source) continue;
    const src = read(source.rule).match(source.re)!;
    const a = Math.min(from + src.index!, sink.index);
    const b = Math.max(from + src.index! + src[0].length, sink.index + sink[0].length);
    out.push(flagAt('code', source.rule, seg.start + a, seg.start + b));
    break;
  }
  const secret = out.some((f) => f.rule === 'exfiltrate_env') ? undefined : providerSecretSentAway(text);
  if (secret) out.push(flagAt('code', 'exfiltrate_env', seg.start + secret[0], seg.start + secret[1]));
  return out;
}

/**
 * Providers whose secrets a developer's environment holds, by the first word of the variable's name, and the domains
 * those secrets are meant for (a host is the provider's when it is one of them or under one).
 */
const PROVIDER_DOMAINS: Readonly<Record<string, readonly string[]>> = {
  aws: ['amazonaws.com', 'amazon.com', 'amazonaws.com.cn'],
  github: ['github.com', 'githubusercontent.com', 'ghcr.io'],
  gh: ['github.com', 'githubusercontent.com', 'ghcr.io'],
  gitlab: ['gitlab.com'],
  openai: ['openai.com', 'openai.azure.com'],
  anthropic: ['anthropic.com'],
  azure: ['azure.com', 'azure.net', 'microsoft.com', 'microsoftonline.com', 'windows.net'],
  google: ['googleapis.com', 'google.com'],
  gcp: ['googleapis.com', 'google.com'],
  gcloud: ['googleapis.com', 'google.com'],
  gemini: ['googleapis.com', 'google.com'],
  stripe: ['stripe.com'],
  slack: ['slack.com'],
  npm: ['npmjs.org', 'npmjs.com'],
  pypi: ['pypi.org', 'pythonhosted.org'],
  docker: ['docker.com', 'docker.io'],
  dockerhub: ['docker.com', 'docker.io'],
  heroku: ['heroku.com'],
  vercel: ['vercel.com'],
  netlify: ['netlify.com'],
  cloudflare: ['cloudflare.com', 'cloudflarestorage.com'],
  digitalocean: ['digitalocean.com', 'digitaloceanspaces.com'],
  twilio: ['twilio.com'],
  sendgrid: ['sendgrid.com', 'sendgrid.net'],
  huggingface: ['huggingface.co', 'hf.co'],
  hf: ['huggingface.co', 'hf.co'],
  datadog: ['datadoghq.com', 'datadoghq.eu'],
  dd: ['datadoghq.com', 'datadoghq.eu'],
  sentry: ['sentry.io'],
};
/** The host name of a written-out host (a quoted name, a URL, a bare domain). */
const hostName = (written: string) =>
  written
    .replace(/^["']|^https?:\/\//i, '')
    .split(/[/:"'?#\s]/, 1)[0]!
    .toLowerCase();
const underAny = (host: string, domains: readonly string[]) =>
  domains.some((d) => host === d || host.endsWith(`.${d}`));
/** A secret read from the environment in any of the languages (`$AWS_SECRET_ACCESS_KEY`, `process.env.X`, `$env:X`…). */
const SECRET_VARIABLE =
  /(?:\$\{?|\$env:|process\.env\.|os\.environ(?:\.get)?[[(]\s*["']|(?:os\.)?getenv\(\s*["']|system\.getenv\(\s*["'])([a-z][a-z0-9]*)((?:_[a-z0-9]+)*_(?:key|token|secret|password|pat|credentials?)(?:_[a-z0-9]+)*)\b/gi;
/** A request in any of the languages, including a plain GET that carries the secret in a header. */
const REQUEST = new RegExp(
  String.raw`${SINK.source}|\b(?:curl|wget|invoke-webrequest|invoke-restmethod|iwr|irm|http|xh)\b|\brequests\.\w+\(|\burlopen\(`,
  'i',
);
const REMOTE_G = new RegExp(REMOTE, 'gi');
const REQUEST_G = new RegExp(REQUEST.source, 'gi');
/** How far before a secret the request that carries it may start. */
const SECRET_REACH = 400;
/** How far a call's brackets or continued lines are followed. */
const CALL_REACH = 2000;
/** A name given a URL (`const url = "https://…"`, `$uri = '…'`), which a call may then use. */
const URL_ASSIGNED = /([$\w]+)["']?\s*[:=]\s*["'`](https?:\/\/[^"'`\s]+)/gi;

/**
 * Where the call a request keyword at `at` starts ends: at its closing bracket when it opens one right away
 * (`fetch(…)`, `axios.post(…)`), else at the end of its line with continuations (`curl … \`, PowerShell's backtick);
 * followed CALL_REACH characters at most.
 */
function callExtent(text: string, at: number, keyword: string): number {
  const after = at + keyword.length;
  const limit = Math.min(text.length, at + CALL_REACH);
  const open = /^[\w.]{0,30}\s{0,2}\(/.exec(text.slice(after, after + 40));
  if (keyword.endsWith('(') || open) {
    let depth = 0;
    for (let i = keyword.endsWith('(') ? after - 1 : after + open![0].length - 1; i < limit; i++) {
      const c = text[i]!;
      if (c === '(' || c === '[' || c === '{') depth++;
      else if ((c === ')' || c === ']' || c === '}') && --depth === 0) return i + 1;
    }
    return limit;
  }
  let end = at;
  for (;;) {
    const nl = text.indexOf('\n', end);
    if (nl === -1 || nl >= limit) return limit;
    if (!/[\\`]$/.test(text.slice(end, nl).trimEnd())) return nl;
    end = nl + 1;
  }
}

/**
 * A provider's secret (named by its variable: `AWS_…_KEY`, `GITHUB_TOKEN`, `$env:AZURE_CLIENT_SECRET`) carried by a
 * request to a host written out that is not the provider's: the one thing a token sent as configuration must never
 * be. The host is written in the same call, or given to a name the call uses. Its span.
 */
function providerSecretSentAway(text: string): [number, number] | undefined {
  const secrets = [...text.matchAll(SECRET_VARIABLE)].filter((v) => PROVIDER_DOMAINS[v[1]!.toLowerCase()]);
  if (secrets.length === 0) return undefined;
  const assigned = [...text.matchAll(URL_ASSIGNED)];
  for (const k of text.matchAll(REQUEST_G)) {
    const near = secrets.filter((v) => v.index >= k.index && v.index <= k.index + SECRET_REACH);
    if (near.length === 0) continue;
    const end = callExtent(text, k.index, k[0]);
    const carried = near.filter((v) => v.index + v[0].length <= end);
    if (carried.length === 0) continue;
    const body = text.slice(k.index, end);
    const hosts = [
      ...[...body.matchAll(REMOTE_G)].map((h) => ({ at: k.index + h.index, host: h[0] })),
      ...assigned
        .filter(
          (a) => a.index < k.index && new RegExp(String.raw`(?<![\w$])${a[1]!.replace('$', '\\$')}(?!\w)`).test(body),
        )
        .map((a) => ({ at: a.index, host: a[2]! })),
    ];
    for (const v of carried) {
      const own = PROVIDER_DOMAINS[v[1]!.toLowerCase()]!;
      const away = hosts.find((h) => !underAny(hostName(h.host), own));
      if (away) return [Math.min(v.index, away.at), Math.max(v.index + v[0].length, away.at + away.host.length)];
    }
  }
  return undefined;
}

const SINK_G = new RegExp(SINK.source, 'gi');
const blank = (m: string) => ' '.repeat(m.length);
/** One named environment variable. */
const ONE_ENV = String.raw`(?:os\.environ\[[^\]\n]+\]|os\.getenv\([^)\n]*\)|process\.env\.\w+|\$env:\w+)`;
/** A request's destination read from the environment (a webhook or API URL the deployment sets). */
const ENV_ADDRESS = String.raw`\b(?:fetch|requests\.\w+|axios\.\w+|urlopen)\(\s*${ONE_ENV}|-ur[il]\s+${ONE_ENV}|\b\w{0,40}(?:url|uri|endpoint|webhook)\w{0,40}["']?\s*[:=]\s*${ONE_ENV}`;
/** Where a request goes is configuration: variables read with it are what that destination is meant to get. */
const ENV_DESTINATION = new RegExp(ENV_ADDRESS, 'i');
/** Where a request's data goes inside a service: a bucket, a queue, a topic, a table, a channel, a region, a host. */
const PLACE = String.raw`(?:bucket|queue|topic|table|channel|region|host)`;
/**
 * One named variable read to authenticate a request or a session (a token, a key, a login's password) or to
 * address it (`Bucket: process.env.REPORTS_BUCKET`: a place read from a variable named for one): configuration, not
 * data sent away.
 */
const ENV_AS_CONFIG = new RegExp(
  String.raw`(?:authorization|bearer|x-api-key|api[_-]?key|auth|token)["']?\s*[:=,]\s*[^\n]{0,40}?${ONE_ENV}|` +
    String.raw`\b\w*${PLACE}\w*["']?\s*[:=]\s*(?:os\.environ\[\s*["']|os\.getenv\(\s*["']|process\.env\.|\$env:)\w*(?:${PLACE}|url|endpoint)\w*(?:["']\s*[\])])?|` +
    String.raw`\.(?:login|auth|authenticate|bind|connect)\([^)\n]{0,60}?${ONE_ENV}|` +
    String.raw`\b(?:os\.path\.join|path\.(?:join|resolve)|join-path|Path)\(\s*${ONE_ENV}|${ONE_ENV}["']?\s*[\\/]|${ENV_ADDRESS}`,
  'gi',
);
/**
 * Inline code a sentence warns against running ("never run `ip link set eth0 down` over SSH", "do not turn Gatekeeper
 * off with `spctl --master-disable`"): not an instruction. The warning reaches the code within one clause: a comma or
 * a semicolon, or a word that turns it ("instead", "but", "without", "before"…), starts another ("Never run it as root;
 * run `…`", "Never switch it off without running `…`").
 */
const WARNED_AGAINST =
  /\b(?:never|don't|do\s+not|must\s+not|should\s+not|shouldn't|avoid)\s+(?:run(?:ning)?|us(?:e|ing)|typ(?:e|ing)|execut(?:e|ing)|call(?:ing)?|paste|pasting|(?:turn|switch)(?:ing)?\s+(?:[\w-]+\s+){0,3}?off|disabl(?:e|ing))\b(?:(?!\b(?:instead|but|rather|then|first|without|unless|until|before|after|except)\b)[^.!?,;\n`]){0,60}(`{1,3})[^`\n]+\1/gi;
const REMOTE_RE = new RegExp(REMOTE, 'i');
/** curl or wget sending a local file (`-F f=@file`, `-T file`, `--data-binary @file`) to a host. */
const CURL_UPLOAD = new RegExp(
  String.raw`\b(?:curl|wget)\b${ONE_COMMAND}*(?:-F["',\s]*\w+=@|-T["',\s]+\S|--upload-file|--data(?:-binary)?["',\s]+@|--post-file)[^\n]*${REMOTE}`,
  'i',
);

/**
 * A path named in a sentence as inline code ("the SDK reads `~/.aws/credentials`"): a mention, which the whole-text
 * reading does not take for code reading that file (code that reads it is read in its own segment).
 */
const PATH_NAMED = /`[~$%]?[\w.%$:-]*(?:[\\/][\w.%$-]+)+[\\/]?`/g;

/** A title that says the learning does what a rule flags: the recipe is its subject (sending its own files, wiping a
 * disk, starting something at boot). */
const DECLARED: Readonly<Record<string, RegExp>> = {
  exfiltrate_file:
    /\b(?:(?:to|for|with|via)\s+(?:an?\s+|the\s+|our\s+|your\s+|its\s+)?(?:[\w-]+\s+){0,2}?(?:api|endpoint|webhook)s?|upload\w*|send(?:s|ing)?|ship(?:s|ping)?|post(?:s|ed|ing)?|push(?:es|ing)?|sync\w*|publish\w*|report(?:s|ing)?|back(?:ing)?\s+up|backups?|forward\w*|export\w*|transfer\w*|mirror\w*)\b/i,
  destroy_disk:
    /\b(?:(?:prepar|initiali[sz]|set\s*up|reus|repartition)\w*\s+(?:an?\s+|the\s+|your\s+|my\s+)?(?:new\s+|old\s+|blank\s+)?(?:usb|sd|external|removable|flash|thumb)|wip(?:e|es|ed|ing)|eras(?:e|es|ed|ing)|format(?:s|ted|ting)?|flash(?:es|ed|ing)?|shred\w*|saniti[sz]\w+|partition\w*|reimag\w+|factory\s+reset|(?:write|burn)\w*\s+(?:an?\s+|the\s+)?(?:iso|image))\b/i,
  // Describing one's own machine for a bug report or an inventory, unless the same text sends something off.
  fingerprinting:
    /\b(?:bug\s+reports?|system\s+info\w*|environment\s+details|diagnos\w*|inventor(?:y|ies)|support\s+bundles?|machine\s+facts|asset\s+lists?)\b/i,
  // Recording or capturing one's own screen, unless the same text sends something off (checked in `purposeful`).
  screen_capture:
    /\b(?:screenshots?|screen\s*(?:capture|record\w*|shots?|cast\w*)|(?:record|captur)\w*\s+(?:the|your|my|a)\s+(?:\w+\s+)?screen)\b/i,
  persistence:
    /\b(?:(?:at|on|after)\s+(?:log\s?in|logon|boot|start-?up|reboot)|when\s+(?:the\s+|my\s+|a\s+)?(?:machine|computer|system|server|mac|pc|laptop|pi)\s+(?:boots|starts)|auto-?start\w*|start(?:s|ed)?\s+automatically|schedul\w+|cron(?:\.(?:d|daily|hourly|weekly|monthly)\b|\s*(?:job|tab|entry))|launch\s?(?:agent|daemon)s?)\b/i,
};
/** Commands that switch back on what the network and security rules see switched off: with one after it, a restart. */
const RESTORED =
  /ipconfig\s+\/renew|\bifup\b|\b(?:ip\s+link\s+set|ifconfig)\s+(?:dev\s+)?\S+\s+up\b|\bnmcli\b[^\n]*\s(?:up|connect|on)\b|(?:systemctl|service)\s+(?:--\w+\s+)*(?:start|enable|unmask|restart)\b|\bservice\s+\S+\s+(?:start|restart)\b|\bufw\s+enable\b|\bstart-service\b|-enabled\s+(?:\$?true|1)\b|\bsetenforce\s+1\b|-disable\w*\s+\$?false\b|\bstate\s+on\b|\brfkill\s+unblock\b|\benable-netadapter\b|\bnetworksetup\s+-set\w+\s+\S+\s+on\b|\biptables\b[^\n]*\s-D\s|\bnft\s+delete\s+rule\b/i;
/** What ends or paces a loop, and how far into it that is looked for. */
const LOOP_ENDS = /\bbreak\b|\breturn\b|\bsleep\(|\bstart-sleep\b|\bawait\s+(?:asyncio\.)?sleep/i;
const LOOP_BODY = 400;
/** iptables' default policy set to drop: with ports or established connections accepted on that chain, a firewall. */
const DROP_POLICY = /-P\s+(input|output|forward)\s+drop/i;
const DROP_POLICY_G = new RegExp(DROP_POLICY.source, 'gi');
/** How far after a switch-off its restart may come. */
const RESTART_WITHIN = 600;

/** Code fetching something from elsewhere: what it then starts at boot is a dropper, whatever the title says. */
const FETCHES =
  /\b(?:curl|wget|invoke-webrequest|iwr|irm|invoke-restmethod|urlretrieve|downloadfile|downloadstring|start-bitstransfer)\b/i;

/** Hosts anyone can publish on: that a title names one says nothing of who wrote what it serves. */
const SHARED_HOSTS = new Set(
  'github githubusercontent gitlab bitbucket pastebin amazonaws cloudfront googleapis azureedge windows ngrok trycloudflare herokuapp vercel netlify bit tinyurl'.split(
    ' ',
  ),
);
/** How far after a flag its call's arguments (the URL a request goes to) may run. */
const CALL_ARGUMENTS = 160;
/**
 * Whether a URL in a flag or its call's arguments is on a host the title names ("Install mise" and
 * https://mise.run, "…with the DeepL API" and https://api-free.deepl.com): the tool or service the learning is
 * about, reached as its own documentation says.
 */
function titleNamesHost(f: LayerFlag, text: string, title: string): boolean {
  const reach = text.slice(f.start, f.end + CALL_ARGUMENTS);
  // Under a title that installs something, the product may name any label of its installer's host
  // ("Install Foundry" and https://foundry.paradigm.xyz).
  const installs = f.rule === 'pipe_to_shell' && INSTALL_TITLE.test(title);
  for (const m of reach.matchAll(/\bhttps?:\/\/([\w-]+(?:\.[\w-]+)+)/gi)) {
    const labels = m[1]!.toLowerCase().split('.').slice(0, -1);
    const names = installs ? labels.filter((l) => !GENERIC_LABELS.has(l)) : [labels.at(-1)!];
    for (const name of names)
      if (name.length >= 3 && !SHARED_HOSTS.has(name) && new RegExp(String.raw`\b${name}\b`, 'i').test(title))
        return true;
  }
  return false;
}
/** A title that opens by installing or setting up something ("Install Foundry…", "How to set up uv"). */
const INSTALL_TITLE = /^\s*(?:how\s+to\s+)?(?:install\w*|set\s*up|setting\s+up|bootstrap\w*|upgrad\w*|updat\w*)\b/i;
/** Host labels that name no product: a service's role in its address. */
const GENERIC_LABELS = new Set(
  'www get install installer download downloads dl cdn static raw api app apps sh script scripts releases release pkg pkgs packages repo repos dist files'.split(
    ' ',
  ),
);
/** Rules a destination the title names makes the learning's subject: what it installs from, or sends to. */
const TO_NAMED_HOST = new Set(['pipe_to_shell', 'exfiltrate_file']);

/** What a ransom asks for, and code that goes over many files: with either, encrypt-then-delete is ransomware. */
const RANSOM_NOTE = /\bransom|\bbitcoin|\bbtc\b|\bmonero\b|\bwallet\b|decrypt(?:ion)?\s+key|\bpay\s/i;
const FILE_WALK =
  /\bos\.walk|\bglob\.|\.r?glob\(|\.iterdir\(|\bget-childitem\b|\bgci\b|\bls\b|\bfind\s|\breaddir(?:sync)?\(|\bfor\s*\(?\s*\S+\s+(?:in|of)\b|\bforeach\b|%\s*\{|\bxargs\b/i;
/** A file a command of the text writes: an archive, a dump, an encryption's or a download's output, a redirect. */
const PRODUCED =
  /(?:\btar\s+-?[a-z]*f\s+|\bzip\s+(?:-\w+\s+)*|\b7z\s+a\s+(?:-\S+\s+)*|\s-(?:o|out|outfile|destinationpath)\s+|\s--output[=\s]|>\s*|\.backup\s+["']?)(["']?)([^\s"'();|&<>]+)\1/gi;
/** Any removal, parsed or not: each must be one REMOVED reads. */
const ANY_REMOVAL =
  /\b(?:rm|rmdir|rd|del|erase|shred|unlink|truncate|wipe)\b|remove-item|rmtree|\.remove\(|\.unlink|-delete\b|\brm(?:sync)?\(/gi;
/** A file a command of the text removes. */
const REMOVED =
  /(?:\brm\s+(?:-\w+\s+)*|\bremove-item\s+(?:-(?:literal)?path\s+)?|\bdel\s+(?:\/\w\s+)*|\bos\.(?:remove|unlink)\(\s*|\bfs\.unlink(?:sync)?\(\s*)(["']?)([^\s"'();|&<>]+)\1/gi;

/**
 * Encryption followed by the removal of the clear copy the recipe itself made ("tar czf x.tgz …; openssl enc -in
 * x.tgz …; rm x.tgz"): a backup made safe, not ransomware. Every removal after the encryption must be of a file the
 * text wrote, with no ransom note and no walk over files anywhere in the text.
 */
function clearCopyRemoved(f: LayerFlag, text: string): boolean {
  if (RANSOM_NOTE.test(text) || FILE_WALK.test(text)) return false;
  const made = new Set([...text.matchAll(PRODUCED)].map((m) => m[2]!.toLowerCase()));
  const after = text.slice(f.start);
  const removed = [...after.matchAll(REMOVED)].map((m) => m[2]!.toLowerCase());
  return (
    removed.length > 0 &&
    removed.length === [...after.matchAll(ANY_REMOVAL)].length &&
    removed.every((r) => made.has(r))
  );
}

/** A file filled from /dev/zero or /dev/urandom with dd, and the file's name. */
const FILL_FILE = /\bdd\s+if=\/dev\/(?:zero|u?random)\s+of=(\S+)/i;

/** A fill file removed right after it is written ("dd … of=/home/zero.fill; rm /home/zero.fill"): free space wiped. */
function fillRemoved(f: LayerFlag, text: string): boolean {
  const name = text.slice(f.start, f.end).match(FILL_FILE)?.[1];
  if (!name) return false;
  const after = text.slice(f.start, f.end + RESTART_WITHIN);
  return [...after.matchAll(REMOVED)].some((m) => m[2] === name);
}

/**
 * A shell-profile line defining an alias that is one plain fetch printed to the terminal (`alias weather="curl -s
 * wttr.in/Berlin"`): run when typed, sending nothing and running nothing it fetches.
 */
const FETCH_ALIAS =
  /^(?:echo|printf)\s+(['"])\s*alias\s+[\w.-]+=\\?["']?\s*(?:curl|wget)(?![^\n]*?(?:\s-[a-zA-Z]*[dFTXoO]\b|--(?:data|form|upload|output|post|request)))\s[^;&|<>`$()\n]*?\1\s*(?:>>|\|\s*tee\s+-a)/;

/** Whether a flag is the learning's declared subject or undone a few lines later. */
function purposeful(f: LayerFlag, text: string, title: string): boolean {
  if (f.rule === 'persistence' && FETCH_ALIAS.test(text.slice(f.start, f.end))) return true;
  if (f.rule === 'resource_exhaustion' && fillRemoved(f, text)) return true;
  if (f.rule === 'ransomware' && clearCopyRemoved(f, text)) return true;
  if (
    DECLARED[f.rule]?.test(title) &&
    !(f.rule === 'persistence' && FETCHES.test(text)) &&
    !((f.rule === 'screen_capture' || f.rule === 'fingerprinting') && SINK.test(text))
  )
    return true;
  if (TO_NAMED_HOST.has(f.rule) && titleNamesHost(f, text, title)) return true;
  // A loop that can end (break, return) or waits between requests polls; it does not flood.
  if (f.rule === 'flood' && LOOP_ENDS.test(text.slice(f.start, f.end + LOOP_BODY).split(/```|~~~/)[0]!)) return true;
  if (f.rule === 'disable_network' && DROP_POLICY.test(text.slice(f.start, f.end))) {
    // Every chain the text drops by default keeps ports or established connections open.
    const chains = [...text.matchAll(DROP_POLICY_G)].map((m) => m[1]!);
    if (
      chains.every((c) =>
        new RegExp(String.raw`-[AI]\s+${c}\b[^\n]*(?:--dports?\b|established)[^\n]*-j\s+accept`, 'i').test(text),
      )
    )
      return true;
  }
  return (
    (f.rule === 'disable_network' || f.rule === 'disable_security') &&
    RESTORED.test(text.slice(f.end, f.end + RESTART_WITHIN))
  );
}

/**
 * Flags of the code layer over `text`, in text order, each rule once: every code segment, then the whole text
 * (code whose fences a writer broke, or that sits in prose), where what is read must lie near where it is sent.
 * Inline code the text warns against running is not read. `task` (title and task context) tells what reach is the
 * learning's own subject; what its first line (the title) says it does is not flagged, nor a switch-off restarted.
 */
export function screenCode(text: string, task = ''): LayerFlag[] {
  const out: LayerFlag[] = [];
  const title = task.split('\n', 1)[0]!;
  const read = text.replace(WARNED_AGAINST, blank);
  for (const f of [
    ...codeSegments(read).flatMap((s) => {
      const foreign = foreignReach(s, read.slice(0, s.start) + read.slice(s.start + s.text.length), task);
      return foreign ? [...segmentFlags(s), foreign] : segmentFlags(s);
    }),
    ...segmentFlags({ text: read.replace(PATH_NAMED, blank), start: 0 }, NEAR),
  ])
    if (!out.some((o) => o.rule === f.rule) && !purposeful(f, read, title)) out.push(f);
  return out.sort((a, b) => a.start - b.start);
}
