// The mutation that makes a network (a create wizard or an import form): once made, the network
// lists are refreshed and the new network's page opens. One copy for the four forms.
import { useNavigate } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';

export function useNetworkMaker<T extends { id: number }>(platform: 'evm' | 'consortium', make: () => Promise<T>) {
  const navigate = useNavigate();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: make,
    onSuccess: async (n) => {
      await qc.invalidateQueries({ queryKey: ['networks'] });
      navigate(`/networks/${platform}/${n.id}`);
    },
  });
}
