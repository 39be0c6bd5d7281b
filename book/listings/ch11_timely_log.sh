# A session with timely-log (book chapter 11): append, list, dump, follow, consumers, damage.
# CTest runs it in an empty directory with timely-log on PATH (book:ch11_timely_log); what it
# prints is expected/ch11_timely_log.txt. `show` prints a command, then its output and, if it
# failed, its exit status.
show() {
  printf '$ %s\n' "$1"
  sh -c "$1" 2>&1
  status=$?
  [ "$status" -eq 0 ] || echo "[exit status $status]"
}
printf '1700000000000\tsensor=a temp=20.5\n1700000001000\tsensor=b temp=21.0\n' >readings.tsv
printf '1700000002000\tsensor=a temp=20.7\n1700000003000\tsensor=b temp=21.2\n' >>readings.tsv

show 'timely-log -l log append readings --create --timestamp-field 1 --batch-records 2 <readings.tsv'
show 'timely-log -l log list'
show 'timely-log -l log --time iso dump readings --offset 1 -n 2'
show 'timely-log -l log dump readings --timestamp 1700000002500 --value-only'
show 'timely-log -l log dump readings -n 1 --hex'
# follow from offset 4 (the end) for one record, while another process appends it.
show 'timely-log -l log follow readings --offset 4 -n 1 >followed.txt &
echo "1700000004000	sensor=a temp=20.9" | timely-log -l log append readings --timestamp-field 1
wait; cat followed.txt'
show 'timely-log -l log dump readings --group dashboard -n 3 --value-only'
show 'timely-log -l log consumers'
show 'timely-log -l log dump readings/7'
show 'timely-log -l log verify'
# Flip one byte in the second batch (it starts at byte 160) and check again.
show 'printf Z | dd of=log/readings/0/00000000000000000000.log bs=1 seek=240 conv=notrunc status=none'
show 'timely-log -l log verify'
show 'timely-log -l log dump readings --skip-damaged'
