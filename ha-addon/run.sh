#!/usr/bin/env bash
# The add-on's start: the add-on's options (/data/options.json) and the
# Supervisor's MQTT service become a c1nk-gst-answer config file (group
# [answer]), the secrets owner-only files beside it, then the answerer runs.
#
#   run.sh                    write /data/answer.conf, then exec c1nk-gst-answer --config it
#   run.sh --convert-only OUT write the config to OUT (and the secrets), and exit
#
# For tests, the environment may move everything:
#   C1NK_ADDON_DATA          the state folder (default /data)
#   C1NK_ADDON_OPTIONS       the options (default $C1NK_ADDON_DATA/options.json)
#   C1NK_ADDON_MQTT_SERVICE  a file with the Supervisor's answer for services/mqtt
#                            (default: asked of http://supervisor with $SUPERVISOR_TOKEN)
#   C1NK_ADDON_MEDIA         where the default recordings folder goes (default /media)
#
# Option values are data: jq writes them into the key file escaped as GKeyFile
# reads them back, a value with a line break or another control character is
# refused, and nothing is ever evaluated by the shell.
set -euo pipefail

fail() {
  local line
  while IFS= read -r line; do printf 'c1nk add-on: %s\n' "$line" >&2; done <<<"$*"
  exit 1
}

data=${C1NK_ADDON_DATA:-/data}
options=${C1NK_ADDON_OPTIONS:-$data/options.json}
media=${C1NK_ADDON_MEDIA:-/media}
config=$data/answer.conf
convert_only=false
case "$#:${1:-}" in
  0:) ;;
  2:--convert-only) convert_only=true; config=$2 ;;
  *) fail "run.sh takes no arguments, or --convert-only OUT (write the config to OUT and exit)" ;;
esac

command -v jq >/dev/null || fail "jq is missing from the image; install the Debian package jq"
[ -r "$options" ] || fail "cannot read the add-on's options $options"
jq -e 'type == "object"' "$options" >/dev/null 2>&1 || fail "$options is not a JSON object of options"

# The broker: the Mosquitto add-on, as the Supervisor hands it to add-ons that declare mqtt.
if [ -n "${C1NK_ADDON_MQTT_SERVICE:-}" ]; then
  service=$(cat -- "$C1NK_ADDON_MQTT_SERVICE") || fail "cannot read $C1NK_ADDON_MQTT_SERVICE"
elif [ -n "${SUPERVISOR_TOKEN:-}" ]; then
  service=$(curl -fsS --max-time 10 -H "Authorization: Bearer $SUPERVISOR_TOKEN" http://supervisor/services/mqtt) \
    || fail "the Supervisor has no MQTT service: install and start the Mosquitto broker add-on, then start this add-on again"
else
  fail "no MQTT service: this runs as a Home Assistant add-on (SUPERVISOR_TOKEN), or give C1NK_ADDON_MQTT_SERVICE FILE"
fi
printf '%s' "$service" | jq -e '.data | type == "object" and (.host | type == "string") and (.port | tostring | test("^[0-9]{1,5}$"))' >/dev/null 2>&1 \
  || fail "the Supervisor's MQTT service has no host and port ({\"data\":{\"host\",\"port\",…}}); is the Mosquitto broker add-on started?"

# Every string of the options and of the service, on one line: a line break
# would start another key. Tabs are escaped below.
problems=$(printf '%s' "$service" | jq -r --slurpfile options "$options" '
  def controls: [paths(type == "string") as $p | select(getpath($p) | explode | any(. < 32 and . != 9 or . == 127))
                  | ($p[0] | tostring) + ($p[1:] | map("[\(.)]") | join(""))];
  ($options[0] | controls | map("the option " + . + " holds a line break or another control character; give it on one line")),
  (.data | controls | map("the Supervisor'"'"'s MQTT " + . + " holds a line break or another control character"))
  | .[]')
[ -z "$problems" ] || fail "$problems"

opt() { jq -r --arg key "$1" '.[$key] // empty | tostring' "$options"; }

# A secret goes to an owner-only file under $data; its option names the file.
secret() {
  local path=$data/$1 value=$2
  if [ -z "$value" ]; then rm -f -- "$path"; return; fi
  (umask 077 && printf '%s\n' "$value" >"$path.new" && chmod 600 "$path.new" && mv -f "$path.new" "$path") \
    || fail "cannot write $path"
}

mkdir -p -- "$data" "$data/state" || fail "cannot create $data"
chmod 700 "$data/state"
mqtt_password=$(printf '%s' "$service" | jq -r '.data.password // empty | tostring')
mqtt_user=$(printf '%s' "$service" | jq -r '.data.username // empty | tostring')
[ -n "$mqtt_user" ] || mqtt_password=
secret mqtt-password "$mqtt_password"
secret mqtt-open-code "$(opt mqtt_open_code)"
secret rtsp-password "$(opt rtsp_password)"
secret sip-password "$(opt sip_password)"
web_password=$(opt web_password)
if [ -n "$web_password" ] && [ -n "$(opt web_port)" ]; then
  # Stored as its yescrypt hash, as `web-password` does for a person.
  printf '%s\n' "$web_password" | c1nk-gst-answer web-password --web-password-file "$data/web-password" \
    || fail "the web page's password was not set (above); give web_password 8 characters or more"
else
  rm -f -- "$data/web-password"
fi
unset web_password mqtt_password

# The options, each one key of c1nk-gst-answer (every option of config.yaml is here).
# shellcheck disable=SC2016 # the $ are jq's
library='
def given: . != null and . != "" and . != [];
def keys_of_options: {
  server: "server", answer: "answer", hangup_after: "hangup-after",
  pipeline: "pipeline", sink: "sink", audio_sink: "audio-sink", audio_source: "audio-source",
  speaker_volume: "speaker-volume", stun: "stun", turn: "turn",
  mqtt: "mqtt", mqtt_topic: "mqtt-topic", mqtt_trust_ca: "mqtt-trust-ca", mqtt_retain_snapshot: "mqtt-retain-snapshot",
  rtsp_port: "rtsp-port", rtsp_user: "rtsp-user", gst_debug: "gst-debug",
  sip_ring: "sip-ring", sip_registrar: "sip-registrar", sip_user: "sip-user", sip_address: "sip-address",
  sip_port: "sip-port", sip_transport: "sip-transport", sip_open_key: "sip-open-key", sip_audio_only: "sip-audio-only"
};
# Written only with a recording: without one they are a usage error.
def recording_keys: {keep_days: "keep-days", keep_gb: "keep-gb", min_free_gb: "min-free-gb"};
# Each becomes a key below: record (with a default), web-port (with a password),
# and the secrets, whose keys name the files run.sh writes.
def other_options: ["record", "web_port", "web_password", "mqtt_open_code", "rtsp_password", "sip_password"];
def known: (keys_of_options | keys) + (recording_keys | keys) + other_options;
def recording($media): (.pipeline // "record") as $p
  | .record // (if $p == "record" or $p == "display-record" then $media + "/c1nk/%Y-%m-%d_%H%M%S-{callId}.mkv" else null end);
'

# Options that do nothing as set; the add-on still starts.
notes=$(jq -r "$library"'
  (keys - known | map("the option " + . + " is not one of this add-on'"'"'s; ignored"))[],
  (if (.web_port | given) and ((.web_password | given) | not)
   then "the web page is off: set web_password (8 characters or more) to serve it on web_port" else empty end),
  (if (recording("") | given | not) and ([.keep_days, .keep_gb, .min_free_gb] | any(given))
   then "keep_days, keep_gb and min_free_gb apply to recordings: this pipeline records nothing" else empty end)
  ' "$options")
[ -z "$notes" ] || while IFS= read -r note; do printf 'c1nk add-on: %s\n' "$note" >&2; done <<<"$notes"

# The key file. `esc` is GKeyFile's escaping of a string value (\\, \t,
# leading spaces as \s); a list's items also escape their separator `;`.
# shellcheck disable=SC2016 # the $ are jq's
program=$library'
def esc: gsub("\\\\"; "\\\\") | gsub("\t"; "\\t")
  | capture("^(?<lead> *)(?<rest>.*)$") | (.lead | gsub(" "; "\\s")) + .rest;
def value: if type == "array" then map(select(given) | tostring | esc | gsub(";"; "\\;")) | join(";")
  else tostring | esc end;
def line($key; $v): "\($key) = \($v | value)";

. as $o
| ($service[0].data) as $s
| recording($media) as $record
| [ "# Written by the c1nk-gst add-on (run.sh) from its options at each start: change the options, not this file.",
    "[answer]",
    line("device-id-file"; $data + "/device-id"),
    ( keys_of_options | to_entries[] | select($o[.key] | given) | line(.value; $o[.key]) ),
    ( if ($record | given) then
        line("record"; $record),
        ( recording_keys | to_entries[] | select($o[.key] | given) | line(.value; $o[.key]) )
      else empty end ),
    ( if ($o.web_port | given) and $web then line("web-port"; $o.web_port), line("web-password-file"; $data + "/web-password") else empty end ),
    ( if ($o.mqtt | given) | not then
        line("mqtt"; (if $s.ssl == true then "mqtts" else "mqtt" end) + "://"
                     + ($s.host | tostring | if test(":") then "[" + . + "]" else . end) + ":" + ($s.port | tostring))
      else empty end ),
    ( if ($s.username | given) then line("mqtt-user"; $s.username) else empty end ),
    ( if ($s.username | given) and ($s.password | given) then line("mqtt-password-file"; $data + "/mqtt-password") else empty end ),
    ( if ($o.mqtt_open_code | given) then line("mqtt-open-code-file"; $data + "/mqtt-open-code") else empty end ),
    ( if ($o.rtsp_password | given) then line("rtsp-password-file"; $data + "/rtsp-password") else empty end ),
    ( if ($o.sip_password | given) then line("sip-password-file"; $data + "/sip-password") else empty end )
  ]
| join("\n")
'
web=false
[ -s "$data/web-password" ] && web=true
text=$(jq -r --slurpfile service <(printf '%s' "$service") --arg data "$data" --arg media "$media" \
  --argjson web "$web" "$program" "$options") || fail "could not turn $options into a config file (above)"
(umask 077 && printf '%s\n' "$text" >"$config.new" && mv -f "$config.new" "$config") || fail "cannot write $config"

# The recordings' folder (the part of the pattern before its first % or {) must exist.
record=$(jq -r --arg media "$media" "$library"'recording($media) // ""' "$options")
if [ -n "$record" ]; then
  folder=$(dirname -- "$record")
  while [[ $folder == *"%"* || $folder == *"{"* ]]; do folder=$(dirname -- "$folder"); done
  mkdir -p -- "$folder" || fail "cannot create the recordings' folder $folder"
fi

if $convert_only; then
  exit 0
fi
export XDG_STATE_HOME=$data/state
# To compare with what a phone shows the first time (made at the first start).
certificate=$XDG_STATE_HOME/c1nk/web-cert.pem
if $web && [ -n "$(opt web_port)" ] && [ -r "$certificate" ]; then
  fingerprint=$(openssl x509 -in "$certificate" -noout -fingerprint -sha256 2>/dev/null) || fingerprint="unreadable"
  printf 'c1nk add-on: the web page'"'"'s certificate: %s\n' "$fingerprint" >&2
fi
exec c1nk-gst-answer --config "$config"
